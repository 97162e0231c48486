package dev.slipway.operator;

import dev.slipway.accounts.AccountStore;
import dev.slipway.core.Json;
import dev.slipway.core.MicrosClock;
import dev.slipway.store.Database;
import dev.slipway.users.Passwords;
import dev.slipway.users.User;
import dev.slipway.users.UserStore;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

@Command(name = "users", mixinStandardHelpOptions = true,
        description = "Manage dashboard users (operator command; works while the server runs).",
        subcommands = {UsersCommand.Create.class, UsersCommand.ListUsers.class, UsersCommand.ResetPassword.class})
public final class UsersCommand {

    @Command(name = "create", mixinStandardHelpOptions = true,
            description = "Create a user who signs in to the dashboard of an account. Without --password-stdin a "
                    + "password is generated and printed once.")
    static final class Create implements Callable<Integer> {
        @Mixin StoreOptions store;
        @Option(names = "--account", required = true, description = "Account id (acct_…)") String account;
        @Option(names = "--email", required = true, description = "The user's email; it signs in with it") String email;
        @Option(names = "--password-stdin", description = "Read the password from the first line of standard input "
                + "(at least " + Passwords.MIN_LENGTH + " characters) instead of generating one") boolean passwordStdin;
        @Option(names = "--json", description = "Print JSON: {id, account_id, email, password (only when generated)}") boolean json;

        @Override
        public Integer call() {
            String password = password(passwordStdin);
            if (password == null) return 2;
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
                User user = new UserStore(db.jdbi(), clock).create(account, email, password);
                if (json) {
                    Map<String, Object> m = json(user);
                    if (!passwordStdin) m.put("password", password);
                    System.out.println(Json.write(m));
                } else {
                    System.out.println("Created user " + user.email() + " (" + user.id() + ") for " + account + ".");
                    if (!passwordStdin) printOnce(password);
                }
                return 0;
            } catch (IllegalArgumentException e) {
                System.err.println("error: " + e.getMessage());
                return 2;
            }
        }
    }

    @Command(name = "reset-password", mixinStandardHelpOptions = true,
            description = "Give a dashboard user a new password (generated and printed once, or read with --password-stdin) "
                    + "and sign them out everywhere.")
    static final class ResetPassword implements Callable<Integer> {
        @Mixin StoreOptions store;
        @Option(names = "--email", required = true, description = "The user's email") String email;
        @Option(names = "--password-stdin", description = "Read the new password from the first line of standard input "
                + "(at least " + Passwords.MIN_LENGTH + " characters) instead of generating one") boolean passwordStdin;

        @Override
        public Integer call() {
            String password = password(passwordStdin);
            if (password == null) return 2;
            try (Database db = store.open(2)) {
                Optional<User> user = new UserStore(db.jdbi(), MicrosClock.system()).resetPassword(email, password);
                if (user.isEmpty()) {
                    System.err.println("error: no user with email " + email);
                    return 2;
                }
                System.out.println("New password for " + user.get().email() + "; every session of theirs is signed out.");
                if (!passwordStdin) printOnce(password);
                return 0;
            } catch (IllegalArgumentException e) {
                System.err.println("error: " + e.getMessage());
                return 2;
            }
        }
    }

    /** A generated password, shown this once. */
    private static void printOnce(String password) {
        System.out.println();
        System.out.println("    password: " + password);
        System.out.println();
        System.out.println("It will not be shown again.");
    }

    /** The first line of standard input, or a generated password; null (after saying why) when stdin fails. */
    private static String password(boolean fromStdin) {
        if (!fromStdin) return Passwords.generate();
        try {
            String line = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            return line == null ? "" : line;
        } catch (IOException e) {
            System.err.println("error: cannot read the password from standard input: " + e.getMessage());
            return null;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List an account's dashboard users.")
    static final class ListUsers implements Callable<Integer> {
        @Mixin StoreOptions store;
        @Option(names = "--account", required = true, description = "Account id (acct_…)") String account;
        @Option(names = "--json", description = "Print JSON") boolean json;

        @Override
        public Integer call() {
            try (Database db = store.open(2)) {
                var users = new UserStore(db.jdbi(), MicrosClock.system()).list(account);
                if (json) {
                    System.out.println(Json.write(users.stream().map(UsersCommand::json).toList()));
                } else {
                    System.out.printf("%-30s %-40s %s%n", "ID", "EMAIL", "CREATED");
                    for (User u : users) System.out.printf("%-30s %-40s %s%n", u.id(), u.email(), u.createdAt());
                }
                return 0;
            }
        }
    }

    static Map<String, Object> json(User u) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", u.id());
        m.put("account_id", u.accountId());
        m.put("email", u.email());
        m.put("created_at", u.createdAt().toString());
        return m;
    }
}
