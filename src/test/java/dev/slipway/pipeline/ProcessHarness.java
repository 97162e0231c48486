package dev.slipway.pipeline;

import dev.slipway.core.Json;
import dev.slipway.store.Dialect;
import dev.slipway.testing.GitServer;
import dev.slipway.testing.Http;
import dev.slipway.testing.JavaProcess;
import dev.slipway.testing.TestStore;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** The server as a separate process, as an operator runs it, on a fresh store with a local git server. */
final class ProcessHarness implements AutoCloseable {
    private static final Pattern API = Pattern.compile("API listening on http://127\\.0\\.0\\.1:(\\d+)/v1");

    final GitServer git;
    final TestStore store;
    private final Map<String, String> env;
    private JavaProcess server;
    private String key;
    private String apiUrl;
    /** 0: each start picks one */
    private int appsPort;

    /** @param settings environment variables of the server besides its data dir, git hosts and store */
    ProcessHarness(Dialect kind, Map<String, String> settings) {
        git = GitServer.start();
        store = TestStore.create(kind);
        env = new HashMap<>(settings);
        env.put("SLIPWAY_DATA_DIR", store.dataDir().resolve("data").toString());
        env.put("SLIPWAY_GIT_HOSTS", "github=" + git.baseUrl());
        if (kind == Dialect.POSTGRES) env.put("SLIPWAY_DATABASE_URL", store.jdbcUrl());
    }

    /** Starts the server; the first start prints the default account's key, a later one none. */
    JavaProcess start() {
        return start(Map.of());
    }

    /** As {@link #start()}, with these settings for this start only. */
    JavaProcess start(Map<String, String> settings) {
        return start(System.getProperty("java.class.path"), settings);
    }

    /** As {@link #start(Map)}, running another build of Slipway (its classes and libraries). */
    JavaProcess start(String classPath, Map<String, String> settings) {
        Map<String, String> all = new HashMap<>(env);
        all.putAll(settings);
        server = JavaProcess.start(classPath, all, store.dataDir(), "server", "--api-port", "0", "--apps-port", Integer.toString(appsPort));
        Matcher m = API.matcher(server.awaitLine(l -> API.matcher(l).find(), Duration.ofSeconds(60)));
        assertThat(m.find()).isTrue();
        if (key == null) {
            server.awaitLine(l -> l.trim().startsWith("sk_"), Duration.ofSeconds(5));
            key = ownKey();
        } else {
            assertThat(server.output()).doesNotContain("sk_");
        }
        apiUrl = "http://127.0.0.1:" + m.group(1);
        return server;
    }

    /** Every later start serves the apps on one port, as an operator's server does: app URLs stay the same. */
    void keepAppsPort() {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            appsPort = s.getLocalPort();
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }

    /** The API of the server started last, with a key of a high-limit account. */
    Http http() {
        return new Http(apiUrl, key);
    }

    /**
     * A key of an account with a high limit, made with the operator commands while the server runs: tests
     * poll logs fast enough to use up the default account's 600 requests a minute.
     */
    private String ownKey() {
        try {
            var account = Json.MAPPER.readTree(JavaProcess.run(env, store.dataDir(), "accounts", "create",
                    "--name", "proc-" + System.nanoTime(), "--tier", "team", "--rate-limit", "100000", "--json").stdout());
            var created = Json.MAPPER.readTree(JavaProcess.run(env, store.dataDir(), "keys", "create",
                    "--account", account.get("id").asText(), "--json").stdout());
            return created.get("key").asText();
        } catch (Exception e) {
            throw new AssertionError("cannot create the test's account: " + e, e);
        }
    }

    @Override
    public void close() throws InterruptedException {
        try {
            if (server != null && server.process().isAlive()) {
                server.process().toHandle().destroy();
                server.waitForExit(Duration.ofSeconds(60));
            }
        } finally {
            if (server != null) server.close();
            store.close();
            git.close();
        }
    }
}
