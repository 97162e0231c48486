package dev.slipway.databases;

import dev.slipway.accounts.Tier;
import dev.slipway.core.Ids;
import dev.slipway.core.MicrosClock;
import dev.slipway.migrations.Migration;
import dev.slipway.migrations.MigrationStatus;
import dev.slipway.net.DatabaseEndpoint;
import dev.slipway.projects.NewProject;
import dev.slipway.projects.Project;
import dev.slipway.projects.ProjectChanges;
import dev.slipway.secrets.SecretBox;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Await;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.TestServer;
import dev.slipway.webhooks.RebindingNames;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A {@code connect} database's name is resolved once, checked, and connected to at that address: a name that
 * answers the provided server's address to the check and another address to a second lookup (a DNS rebinding)
 * never gets the server's connection to that other address. Everything here is on loopback: the "provided
 * server" listens on 127.0.0.1, the rebinding's target on 127.0.0.2, the same port.
 */
@EndToEnd
class ConnectPinningTest {
    static TestServer server;
    static SecretBox secrets;
    static String accountId;
    static final List<Listener> listeners = new ArrayList<>();

    /** Accepts connections, counts them and closes them at once (no database answers here). */
    static final class Listener implements AutoCloseable {
        final ServerSocket socket;
        final AtomicInteger accepted = new AtomicInteger();

        Listener(String address, int port) throws IOException {
            socket = new ServerSocket();
            socket.bind(new InetSocketAddress(InetAddress.getByName(address), port));
            Thread.ofPlatform().daemon().name("listener-" + address).start(() -> {
                while (!socket.isClosed()) {
                    try (Socket s = socket.accept()) {
                        accepted.incrementAndGet();
                    } catch (IOException closed) {
                        return;
                    }
                }
            });
            listeners.add(this);
        }

        int port() {
            return socket.getLocalPort();
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    @BeforeAll
    static void start() {
        server = TestServer.start(Dialect.H2);
        secrets = SecretBox.fromBase64(server.store().secretKey());
        accountId = server.tenant(Tier.TEAM).account().id();
    }

    @AfterAll
    static void stop() throws IOException {
        try {
            for (Listener l : listeners) l.close();
        } finally {
            server.close();
        }
    }

    @ParameterizedTest
    @EnumSource(DbKind.class)
    void theConnectGoesToTheAddressTheCheckSawNotToASecondLookup(DbKind kind) throws Exception {
        Listener provided = new Listener("127.0.0.1", 0);
        Listener rebound = new Listener("127.0.0.2", provided.port());
        String admin = kind.label() + "://admin@127.0.0.1:" + provided.port() + "/";
        DatabaseService service = new DatabaseService(server.slipway().database().jdbi(),
                kind == DbKind.POSTGRES ? AdminServers.of(admin, null) : AdminServers.of(null, admin), secrets,
                server.slipway().stores().logs(), MicrosClock.system(), ProjectChanges.NONE);

        String host = "db-" + UUID.randomUUID().toString().substring(0, 8) + ".pinned.test";
        RebindingNames.rebind(host, InetAddress.getByName("127.0.0.1"), InetAddress.getByName("127.0.0.2"));
        DbAddress target = DbAddress.parse(kind.label() + "://app@" + host + ":" + provided.port() + "/app");
        String projectId = connectRecorded(service, new DatabaseService.Plan(kind, "connect", target, "the-service-key"));

        List<String> lines = new ArrayList<>();
        assertThatThrownBy(() -> service.prepare(projectId, (level, message) -> lines.add(message)))
                .hasMessageContaining("no " + kind.label() + " server answered at " + host + ":" + provided.port());
        Await.until(Duration.ofSeconds(10), "the server's connection to be accepted",
                () -> provided.accepted.get() + rebound.accepted.get() > 0);
        assertThat(rebound.accepted.get()).as("connections to the second lookup's address, 127.0.0.2").isZero();
        assertThat(provided.accepted.get()).as("connections to the checked address, 127.0.0.1").isPositive();
        assertThat(RebindingNames.lookups(host)).as("lookups of " + host).isEqualTo(1);
    }

    /**
     * The same through the real servers, with credentials that work: the connection made at the checked address
     * logs in (the provided server at 127.0.0.1), while the name's second answer, 127.0.0.2, has nothing listening.
     */
    @ParameterizedTest
    @EnumSource(DbKind.class)
    void aConnectionAtTheCheckedAddressLogsInOnTheRealServer(DbKind kind) throws Exception {
        String name = DbServers.unique("sltestpin");
        String key = "key-" + name;
        DatabaseMigrationTest.createByHand(kind, name, key);
        try {
            DbAddress admin = DbServers.adminAddress(kind);
            DatabaseService service = new DatabaseService(server.slipway().database().jdbi(),
                    AdminServers.of(DbServers.postgresAdmin(), DbServers.mysqlAdmin()), secrets,
                    server.slipway().stores().logs(), MicrosClock.system(), ProjectChanges.NONE);
            String host = "db-" + UUID.randomUUID().toString().substring(0, 8) + ".pinned.test";
            RebindingNames.rebind(host, InetAddress.getByName(admin.host()), InetAddress.getByName("127.0.0.2"));
            String options = kind == DbKind.POSTGRES ? "?sslmode=prefer" : "";
            DbAddress target = DbAddress.parse(kind.label() + "://" + name + "@" + host + ":" + admin.port() + "/" + name + options);
            String projectId = connectRecorded(service, new DatabaseService.Plan(kind, "connect", target, key));
            List<String> lines = new ArrayList<>();
            service.prepare(projectId, (level, message) -> lines.add(message));
            assertThat(lines).anyMatch(m -> m.startsWith("Connected to the " + kind.label() + " database at " + host));
            assertThat(RebindingNames.lookups(host)).isEqualTo(1);
            assertThat(service.link(projectId).orElseThrow().endpoint())
                    .isEqualTo(new DatabaseEndpoint(host, admin.port(), false));
        } finally {
            DatabaseMigrationTest.dropByHand(kind, name);
        }
    }

    /** A project with a pending migration and its recorded {@code connect} database; returns the project's id. */
    static String connectRecorded(DatabaseService service, DatabaseService.Plan plan) {
        Project project = server.slipway().projects().create(new NewProject(accountId,
                "p-" + UUID.randomUUID().toString().substring(0, 8), "github", "acme/x", "main", "node-express",
                "us-east-1", null, Map.of()));
        String migrationId = new Ids(MicrosClock.system()).next("mig");
        server.slipway().database().jdbi().useTransaction(h -> {
            String id = service.record(h, accountId, project.id(), migrationId, plan);
            server.slipway().stores().migrations().insert(h, new Migration(migrationId, accountId, project.id(), null,
                    "github", "acme/x", "main", "node-express", null, plan.kind().label(), "connect", id,
                    MigrationStatus.PROCESSING, Instant.now(), Instant.now(), null));
        });
        return project.id();
    }
}
