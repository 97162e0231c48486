package dev.slipway.accounts;

import org.jdbi.v3.core.Handle;

import java.sql.SQLException;

/**
 * An account's row locked until the transaction ends, so that what the transaction then counts of the account
 * (its running builds, its uploads' bytes, its plants) cannot change under it: checks of one account's limits
 * made at the same time run one after the other. Readers and writers of other accounts never wait.
 */
public final class AccountLock {
    private AccountLock() {}

    public static void hold(Handle h, String accountId) {
        h.createQuery("SELECT id FROM accounts WHERE id = :a " + mode(h)).bind("a", accountId).mapTo(String.class).findOne();
    }

    /**
     * On PostgreSQL not {@code FOR UPDATE}: that also waits for the key share any insert referring to the account
     * takes, and would deadlock with a transaction that inserts such a row and then waits for a row this one holds.
     */
    private static String mode(Handle h) {
        try {
            // the drivers answer from constants, without a round trip
            return h.getConnection().getMetaData().getDatabaseProductName().equalsIgnoreCase("PostgreSQL")
                    ? "FOR NO KEY UPDATE" : "FOR UPDATE";
        } catch (SQLException e) {
            throw new IllegalStateException("cannot tell which database the store is", e);
        }
    }
}
