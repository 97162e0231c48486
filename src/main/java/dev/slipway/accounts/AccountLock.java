package dev.slipway.accounts;

import dev.slipway.store.Dialect;
import org.jdbi.v3.core.Handle;

/**
 * An account's row locked until the transaction ends, so that what the transaction then counts of the account
 * (its running builds, its uploads' bytes, its plants) cannot change under it: checks of one account's limits
 * made at the same time run one after the other. Readers and writers of other accounts never wait.
 */
public final class AccountLock {
    private AccountLock() {}

    public static void hold(Handle h, String accountId) {
        h.createQuery("SELECT id FROM accounts WHERE id = :a " + Dialect.of(h).lockForCounting()).bind("a", accountId)
                .mapTo(String.class).findOne();
    }
}
