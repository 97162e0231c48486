package dev.slipway.users;

import dev.slipway.accounts.Account;
import dev.slipway.accounts.AccountStore;
import dev.slipway.accounts.Tier;
import dev.slipway.auth.IssuedKey;
import dev.slipway.auth.KeyStore;

import java.io.PrintStream;
import java.util.concurrent.CompletableFuture;

/**
 * The very first start on an empty store: a default account (tier team) with one API key and a
 * dashboard sign-in, printed once. The password's Argon2 hash (a few hundred ms on a cold JVM) is
 * made on another thread while the server starts its listeners; {@link #finish} waits for it.
 */
public final class FirstStart {
    public static final String EMAIL = "admin@localhost";

    private final String password;
    private final CompletableFuture<String> hash;

    private FirstStart(String password) {
        this.password = password;
        this.hash = CompletableFuture.supplyAsync(() -> Passwords.hash(password),
                r -> Thread.ofPlatform().name("first-start-hash").daemon().start(r));
    }

    /** Starts the work of a first start when the store has no account yet; null when it has one. */
    public static FirstStart begin(AccountStore accounts) {
        return accounts.isEmpty() ? new FirstStart(Passwords.generate()) : null;
    }

    /** Creates the account, key and user, and prints the key and the sign-in once. */
    public void finish(AccountStore accounts, KeyStore keys, UserStore users, PrintStream out) {
        Account account;
        try {
            account = accounts.create("default", Tier.TEAM, null);
        } catch (RuntimeException raced) {
            return; // another server on the same store created it first
        }
        IssuedKey key = keys.create(account.id(), "default");
        users.createHashed(account.id(), EMAIL, hash::join);
        out.println("Created account 'default' (" + account.id() + ", tier team) with this API key:");
        out.println();
        out.println("    " + key.secret());
        out.println();
        out.println("and this dashboard sign-in (at /dashboard):");
        out.println();
        out.println("    email:    " + EMAIL);
        out.println("    password: " + password);
        out.println();
        out.println("They will not be shown again: store them as secrets now (e.g. export SLIPWAY_API_KEY=...).");
        out.flush();
    }
}
