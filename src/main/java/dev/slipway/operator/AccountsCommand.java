package dev.slipway.operator;

import dev.slipway.accounts.Account;
import dev.slipway.accounts.AccountStore;
import dev.slipway.accounts.Tier;
import dev.slipway.core.Json;
import dev.slipway.core.MicrosClock;
import dev.slipway.store.Database;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

@Command(name = "accounts", mixinStandardHelpOptions = true, description = "Manage accounts (operator command; works while the server runs).",
        subcommands = {AccountsCommand.Create.class, AccountsCommand.ListAccounts.class})
public final class AccountsCommand {

    static Map<String, Object> json(Account a) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", a.id());
        m.put("name", a.name());
        m.put("tier", a.tier().label());
        m.put("rate_limit", a.requestsPerMinute());
        m.put("created_at", a.createdAt().toString());
        return m;
    }

    @Command(name = "create", mixinStandardHelpOptions = true, description = "Create an account.")
    static final class Create implements Callable<Integer> {
        @Mixin StoreOptions store;
        @Option(names = "--name", required = true, description = "Account name (letters, digits, '_', '.', '-')") String name;
        @Option(names = "--tier", defaultValue = "free", description = "free (30/min), pro (120/min) or team (600/min); default: ${DEFAULT-VALUE}") String tier;
        @Option(names = "--rate-limit", description = "Requests per minute, overriding the tier's") Integer rateLimit;
        @Option(names = "--json", description = "Print JSON") boolean json;

        @Override
        public Integer call() {
            try (Database db = store.open(2)) {
                AccountStore accounts = new AccountStore(db.jdbi(), MicrosClock.system());
                Optional<String> refused = StoreOptions.admission(db, accounts).refusalOfNewAccount();
                if (refused.isPresent()) {
                    System.err.println("error: " + refused.get());
                    return 2;
                }
                Account a = accounts.create(name, Tier.parse(tier), rateLimit);
                System.out.println(json ? Json.write(json(a))
                        : "Created account " + a.name() + " (" + a.id() + ", tier " + a.tier().label() + ", "
                          + a.requestsPerMinute() + " requests/min)");
                return 0;
            } catch (IllegalArgumentException e) {
                System.err.println("error: " + e.getMessage());
                return 2;
            }
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List accounts.")
    static final class ListAccounts implements Callable<Integer> {
        @Mixin StoreOptions store;
        @Option(names = "--json", description = "Print JSON") boolean json;

        @Override
        public Integer call() {
            try (Database db = store.open(2)) {
                List<Account> all = new AccountStore(db.jdbi(), MicrosClock.system()).list();
                if (json) {
                    System.out.println(Json.write(all.stream().map(AccountsCommand::json).toList()));
                } else {
                    System.out.printf("%-31s %-20s %-5s %9s  %s%n", "ID", "NAME", "TIER", "REQ/MIN", "CREATED");
                    for (Account a : all) {
                        System.out.printf("%-31s %-20s %-5s %9d  %s%n", a.id(), a.name(), a.tier().label(),
                                a.requestsPerMinute(), a.createdAt());
                    }
                }
                return 0;
            }
        }
    }
}
