package dev.slipway.testing;

import dev.slipway.server.Slipway;
import dev.slipway.accounts.Account;
import dev.slipway.accounts.Tier;
import dev.slipway.config.ServerConfig;
import dev.slipway.edge.EdgeSettings;
import dev.slipway.core.MicrosClock;
import dev.slipway.store.Dialect;
import dev.slipway.logs.LogSink;
import dev.slipway.runtime.Instance;
import dev.slipway.runtime.AppSpec;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import java.util.function.UnaryOperator;

/** A real Slipway server on random loopback ports over a fresh store, for HTTP tests. */
public final class TestServer implements AutoCloseable {
    private final TestStore store;
    private final Slipway slipway;
    /** An interrupted run (Ctrl-C on ./slipway test) still stops the server's apps, their networks and mounts. */
    private final Thread atExit;

    private TestServer(TestStore store, Slipway slipway) {
        this.store = store;
        this.slipway = slipway;
        this.atExit = new Thread(slipway::close, "test-server-at-exit");
        Runtime.getRuntime().addShutdownHook(atExit);
    }

    public static TestServer start(Dialect kind) {
        return start(kind, c -> c);
    }

    public static TestServer start(Dialect kind, UnaryOperator<ServerConfig.Builder> customize) {
        return start(kind, customize, MicrosClock.system());
    }

    /** As above, on a clock of the test's (e.g. a {@link MutableClock} to step through backoffs). */
    public static TestServer start(Dialect kind, UnaryOperator<ServerConfig.Builder> customize, Clock clock) {
        return start(TestStore.create(kind), customize, clock);
    }

    /** A server on a store the test made (its data dir where the test wants it); closed with the server. */
    public static TestServer start(TestStore store, UnaryOperator<ServerConfig.Builder> customize, Clock clock) {
        try {
            // after the test's changes too: one that reads an environment takes SLIPWAY_EDGE from it, whose default is the process
            ServerConfig config = customize.apply(config(store, store.dataDir())).edge(EdgeSettings.INLINE).build();
            Slipway slipway = Slipway.start(config, clock, new PrintStream(OutputStream.nullOutputStream()));
            return new TestServer(store, slipway);
        } catch (Exception e) {
            store.close();
            throw new IllegalStateException("test server did not start: " + e.getMessage(), e);
        }
    }

    /** A second server on the same store (same database, same secret key, its own data dir), as on a second node. */
    public Slipway startPeer() {
        return startPeer(MicrosClock.system());
    }

    /** As above, on a clock of the test's (the same as this server's, to move both at once). */
    public Slipway startPeer(Clock clock) {
        try {
            var dir = Files.createTempDirectory(store.dataDir(), "peer-");
            ServerConfig c = slipway.config();
            ServerConfig peer = config(store, dir).uploadLimit(c.deployments().uploadLimitBytes()).gitHosts(c.deployments().gitHosts())
                    .buildSlots(c.deployments().buildSlots()).databaseAdmins(c.databaseAdmins().postgresUrl(), c.databaseAdmins().mysqlUrl())
                    .webhooks(c.webhooks()).isolation(c.isolation().mode()).sandbox(c.isolation().sandbox()).domains(c.domains())
                    .images(c.images()).kubernetes(c.kubernetes()).build();
            return Slipway.start(peer, clock, new PrintStream(OutputStream.nullOutputStream()));
        } catch (Exception e) {
            throw new IllegalStateException("peer server did not start: " + e.getMessage(), e);
        }
    }

    /**
     * Random loopback ports, the test store and its key, no default account, and the settings the process
     * environment gives (the build's pom sets a short health timeout there).
     */
    private static ServerConfig.Builder config(TestStore store, Path dataDir) {
        return ServerConfig.builder(dataDir).environment(System.getenv()).ports(0, 0).databaseUrl(store.jdbcUrl())
                .secretKey(store.secretKey()).createDefaultAccount(false).edge(EdgeSettings.INLINE); // in this JVM: no edge process
    }

    /**
     * Starts an app straight on the runtime, once the server's recovery is done (it sweeps every cell it did not
     * adopt, and would take one started beside it for a leftover).
     */
    public Instance startApp(AppSpec spec, LogSink log) {
        try {
            if (!slipway.awaitRecovery(Duration.ofSeconds(60))) throw new IllegalStateException("the server's recovery did not end within 60 s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return slipway.engine().runtime().start(spec, log);
    }

    public Slipway slipway() { return slipway; }
    public TestStore store() { return store; }
    public String baseUrl() { return "http://127.0.0.1:" + slipway.apiPort(); }

    /** A new account of the tier with one key, and a client using that key. */
    public Tenant tenant(Tier tier) {
        return tenant(tier, null);
    }

    public Tenant tenant(Tier tier, Integer rateLimit) {
        Account account = slipway.accounts().create("t-" + UUID.randomUUID().toString().substring(0, 12), tier, rateLimit);
        String key = slipway.keys().create(account.id(), "test").secret();
        return new Tenant(account, key, new Http(baseUrl(), key));
    }

    public Http anonymous() {
        return new Http(baseUrl(), null);
    }

    public record Tenant(Account account, String key, Http http) {}

    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(atExit);
        } catch (IllegalStateException exiting) {
            // the JVM is exiting: the hook closes it
        }
        try {
            slipway.close();
        } finally {
            store.close();
        }
    }
}
