package dev.slipway.dashboard;

import dev.slipway.accounts.Account;
import dev.slipway.users.User;

/**
 * Who is looking at a dashboard page: the signed-in user, their account, and their session's form token;
 * {@code serverWarning} is shown on every page (apps not isolated), or null.
 */
public record Viewer(User user, Account account, String csrfToken, String serverWarning) {
    public String accountId() { return account.id(); }
}
