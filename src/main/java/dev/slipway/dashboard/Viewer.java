package dev.slipway.dashboard;

import dev.slipway.accounts.Account;
import dev.slipway.users.User;

/** Who is looking at a dashboard page: the signed-in user, their account, and their session's form token. */
public record Viewer(User user, Account account, String csrfToken) {
    public String accountId() { return account.id(); }
}
