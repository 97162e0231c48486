package dev.slipway.operator;

import dev.slipway.accounts.AccountStore;
import dev.slipway.auth.ApiKey;
import dev.slipway.auth.IssuedKey;
import dev.slipway.auth.KeyStore;
import dev.slipway.core.Json;
import dev.slipway.core.MicrosClock;
import dev.slipway.store.Database;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

@Command(name = "keys", mixinStandardHelpOptions = true, description = "Manage API keys (operator command; works while the server runs).",
        subcommands = {KeysCommand.Create.class, KeysCommand.ListKeys.class, KeysCommand.Revoke.class})
public final class KeysCommand {

    @Command(name = "create", mixinStandardHelpOptions = true, description = "Create an API key; it is printed once.")
    static final class Create implements Callable<Integer> {
        @Mixin StoreOptions store;
        @Option(names = "--account", required = true, description = "Account id (acct_…)") String account;
        @Option(names = "--name", defaultValue = "default", description = "A label for the key, e.g. ci") String name;
        @Option(names = "--json", description = "Print JSON: {id, key, account_id}") boolean json;

        @Override
        public Integer call() {
            try (Database db = store.open(2)) {
                Clock clock = MicrosClock.system();
                AccountStore accounts = new AccountStore(db.jdbi(), clock);
                if (accounts.find(account).isEmpty()) {
                    System.err.println("error: no account " + account);
                    return 2;
                }
                Optional<String> refused = StoreOptions.admission(db, accounts).refusalOfCredentials(account);
                if (refused.isPresent()) {
                    System.err.println("error: " + refused.get());
                    return 2;
                }
                IssuedKey issued = new KeyStore(db.jdbi(), clock).create(account, name);
                if (json) {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("id", issued.key().id());
                    m.put("key", issued.secret());
                    m.put("account_id", account);
                    System.out.println(Json.write(m));
                } else {
                    System.out.println("Created key " + issued.key().id() + " (" + name + ") for " + account + ":");
                    System.out.println();
                    System.out.println("    " + issued.secret());
                    System.out.println();
                    System.out.println("It will not be shown again.");
                }
                return 0;
            }
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List an account's keys (never the keys themselves).")
    static final class ListKeys implements Callable<Integer> {
        @Mixin StoreOptions store;
        @Option(names = "--account", required = true, description = "Account id (acct_…)") String account;
        @Option(names = "--json", description = "Print JSON") boolean json;

        @Override
        public Integer call() {
            try (Database db = store.open(2)) {
                var keys = new KeyStore(db.jdbi(), MicrosClock.system()).list(account);
                if (json) {
                    System.out.println(Json.write(keys.stream().map(KeysCommand::json).toList()));
                } else {
                    System.out.printf("%-30s %-12s %-16s %-27s %-27s %s%n", "ID", "PREFIX", "NAME", "CREATED", "LAST USED", "STATUS");
                    for (ApiKey k : keys) {
                        System.out.printf("%-30s %-12s %-16s %-27s %-27s %s%n", k.id(), k.prefix() + "…", k.name(),
                                k.createdAt(), k.lastUsedAt() == null ? "never" : k.lastUsedAt(),
                                k.revokedAt() == null ? "active" : "revoked " + k.revokedAt());
                    }
                }
                return 0;
            }
        }
    }

    @Command(name = "revoke", mixinStandardHelpOptions = true, description = "Revoke a key; it stops working within a second on every server.")
    static final class Revoke implements Callable<Integer> {
        @Mixin StoreOptions store;
        @Parameters(paramLabel = "KEY_ID", description = "Key id (key_…)") String id;

        @Override
        public Integer call() {
            try (Database db = store.open(2)) {
                if (new KeyStore(db.jdbi(), MicrosClock.system()).revoke(id)) {
                    System.out.println("Revoked " + id);
                    return 0;
                }
                System.err.println("error: no active key " + id);
                return 2;
            }
        }
    }

    static Map<String, Object> json(ApiKey k) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", k.id());
        m.put("account_id", k.accountId());
        m.put("name", k.name());
        m.put("prefix", k.prefix());
        m.put("created_at", k.createdAt().toString());
        m.put("last_used_at", k.lastUsedAt() == null ? null : k.lastUsedAt().toString());
        m.put("revoked_at", k.revokedAt() == null ? null : k.revokedAt().toString());
        return m;
    }
}
