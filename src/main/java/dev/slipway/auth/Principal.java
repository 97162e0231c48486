package dev.slipway.auth;

import dev.slipway.accounts.Account;

/** The authenticated caller of a request: the account and the key it used. */
public record Principal(Account account, String keyId) {
    public String accountId() { return account.id(); }
}
