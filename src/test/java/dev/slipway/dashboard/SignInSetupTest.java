package dev.slipway.dashboard;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.Main;
import dev.slipway.server.Slipway;
import dev.slipway.accounts.Tier;
import dev.slipway.config.ServerConfig;
import dev.slipway.core.Json;
import dev.slipway.core.MicrosClock;
import dev.slipway.store.Dialect;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.JavaProcess;
import dev.slipway.testing.ServerPerStore;
import dev.slipway.testing.TestStore;
import java.io.ByteArrayInputStream;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** How people get a sign-in: the first start's default user, and {@code slipway users create} (as a process). */
@EachStore
@EndToEnd
class SignInSetupTest {
    final Dialect kind = server.kind();

    @RegisterExtension
    static final ServerPerStore server = ServerPerStore.start();

    private JavaProcess.Result slipway(String stdin, String... args) {
        Map<String, String> env = kind == Dialect.POSTGRES
                ? Map.of("SLIPWAY_DATABASE_URL", server.store().jdbcUrl())
                : Map.of("SLIPWAY_DATA_DIR", server.store().dataDir().toString());
        return JavaProcess.runWithInput(env, server.store().dataDir(), stdin, args);
    }

    @Test
    void theFirstStartPrintsADefaultUserThatSignsIn() throws Exception {
        TestStore store = TestStore.create(kind);
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        ServerConfig config = ServerConfig.builder(store.dataDir()).ports(0, 0).databaseUrl(store.jdbcUrl()).build();
        try (Slipway slipway = Slipway.start(config, MicrosClock.system(), new PrintStream(printed, true, StandardCharsets.UTF_8))) {
            String out = printed.toString(StandardCharsets.UTF_8);
            Matcher m = Pattern.compile("email: +(\\S+)\\s+password: +(\\S+)").matcher(out);
            assertThat(m.find()).as(out).isTrue();
            assertThat(m.group(1)).isEqualTo(Slipway.DEFAULT_USER_EMAIL);
            assertThat(out).contains("sk_").contains("will not be shown again");
            WebClient web = new WebClient("http://127.0.0.1:" + slipway.apiPort());
            var signedIn = web.signIn(m.group(1), m.group(2));
            assertThat(signedIn.statusCode()).as(signedIn.body()).isEqualTo(303);
            assertThat(web.get("/dashboard/projects").body()).contains("default").contains(Slipway.DEFAULT_USER_EMAIL);
        } finally {
            store.close();
        }
    }

    @Test
    void usersCreateGeneratesOrReadsAPasswordThatSignsIn() throws Exception {
        String account = server.tenant(Tier.FREE).account().id();
        String email = "ops-" + UUID.randomUUID().toString().substring(0, 8) + "@example.com";
        // once as an operator runs it, a process of the launcher (on H2: the store options are the same code on both)
        String[] create = {"users", "create", "--account", account, "--email", email, "--json"};
        String stdout;
        if (kind == Dialect.H2) {
            JavaProcess.Result generated = slipway(null, create);
            assertThat(generated.exitCode()).as(generated.stderr()).isZero();
            stdout = generated.stdout();
        } else {
            Run generated = inProcess("", create);
            assertThat(generated.exit()).as(generated.err()).isZero();
            stdout = generated.out();
        }
        JsonNode json = Json.MAPPER.readTree(stdout);
        assertThat(json.get("email").asText()).isEqualTo(email);
        String password = json.get("password").asText();
        assertThat(password).hasSize(20);
        assertThat(new WebClient(server.baseUrl()).signIn(email, password).statusCode()).isEqualTo(303);

        // the other paths run in this JVM (a process costs seconds): the same command line, its streams swapped
        String second = "dev-" + UUID.randomUUID().toString().substring(0, 8) + "@example.com";
        Run fromStdin = inProcess("my own long passphrase\n", "users", "create", "--account", account,
                "--email", second, "--password-stdin");
        assertThat(fromStdin.exit()).as(fromStdin.err()).isZero();
        assertThat(fromStdin.out()).contains("Created user " + second).doesNotContain("my own long passphrase");
        assertThat(new WebClient(server.baseUrl()).signIn(second, "my own long passphrase").statusCode()).isEqualTo(303);

        Run taken = inProcess("another long passphrase\n", "users", "create", "--account", account,
                "--email", second.toUpperCase(), "--password-stdin");
        assertThat(taken.exit()).isEqualTo(2);
        assertThat(taken.err()).contains("already exists");
        Run weak = inProcess("short\n", "users", "create", "--account", account, "--email", "x" + second, "--password-stdin");
        assertThat(weak.exit()).isEqualTo(2);
        assertThat(weak.err()).contains("at least 12 characters");
        Run noAccount = inProcess("", "users", "create", "--account", "acct_nope", "--email", "y" + second);
        assertThat(noAccount.exit()).isEqualTo(2);
        assertThat(noAccount.err()).contains("no account acct_nope");

        Run listed = inProcess("", "users", "list", "--account", account);
        assertThat(listed.out()).contains(email).contains(second).doesNotContain("argon2");

        // a forgotten password: the operator sets a new one, the old one and its sessions stop working
        WebClient signedIn = new WebClient(server.baseUrl());
        assertThat(signedIn.signIn(second, "my own long passphrase").statusCode()).isEqualTo(303);
        assertThat(signedIn.get("/dashboard/projects").statusCode()).isEqualTo(200);
        Run reset = inProcess("a brand new passphrase\n", "users", "reset-password", "--email", second.toUpperCase(), "--password-stdin");
        assertThat(reset.exit()).as(reset.err()).isZero();
        assertThat(reset.out()).contains("New password for " + second).doesNotContain("a brand new passphrase");
        assertThat(signedIn.get("/dashboard/projects").statusCode()).as("its session was ended").isNotEqualTo(200);
        assertThat(new WebClient(server.baseUrl()).signIn(second, "my own long passphrase").statusCode()).isNotEqualTo(303);
        assertThat(new WebClient(server.baseUrl()).signIn(second, "a brand new passphrase").statusCode()).isEqualTo(303);
        Run generated = inProcess("", "users", "reset-password", "--email", email);
        assertThat(generated.exit()).as(generated.err()).isZero();
        Matcher shown = Pattern.compile("password: (\\S+)").matcher(generated.out());
        assertThat(shown.find()).as(generated.out()).isTrue();
        assertThat(new WebClient(server.baseUrl()).signIn(email, shown.group(1)).statusCode()).isEqualTo(303);
        Run nobody = inProcess("", "users", "reset-password", "--email", "nobody-" + second);
        assertThat(nobody.exit()).isEqualTo(2);
        assertThat(nobody.err()).contains("no user with email");
        Run weakReset = inProcess("short\n", "users", "reset-password", "--email", second, "--password-stdin");
        assertThat(weakReset.exit()).isEqualTo(2);
        assertThat(weakReset.err()).contains("at least 12 characters");
    }

    record Run(int exit, String out, String err) {}

    /** The launcher's command line in this JVM, on this store, with standard input and output swapped for the call. */
    private Run inProcess(String stdin, String... args) {
        String[] store = kind == Dialect.POSTGRES
                ? new String[]{"--database-url", server.store().jdbcUrl()}
                : new String[]{"--data-dir", server.store().dataDir().toString()};
        String[] all = Stream.concat(Arrays.stream(args), Arrays.stream(store))
                .toArray(String[]::new);
        var in = System.in;
        var out = System.out;
        var err = System.err;
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        synchronized (System.class) {
            try {
                System.setIn(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)));
                System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
                System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
                int exit = Main.run(all, Map.of(), System.out, System.err);
                return new Run(exit, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
            } finally {
                System.setIn(in);
                System.setOut(out);
                System.setErr(err);
            }
        }
    }
}
