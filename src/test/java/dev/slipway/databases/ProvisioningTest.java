package dev.slipway.databases;

import dev.slipway.accounts.Tier;
import dev.slipway.core.Ids;
import dev.slipway.core.MicrosClock;
import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;
import dev.slipway.migrations.Migration;
import dev.slipway.migrations.MigrationStatus;
import dev.slipway.projects.NewProject;
import dev.slipway.projects.Project;
import dev.slipway.projects.ProjectChanges;
import dev.slipway.secrets.SecretBox;
import dev.slipway.store.Dialect;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.TestServer;
import java.time.Instant;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Provisioning on the real servers, below the API: what is made, that a stop after any step resumes
 * into exactly one database and user, and that a failed migration (or a crash after it) leaves
 * nothing behind.
 */
@EndToEnd
class ProvisioningTest {
    /** Plays a server stopping right after a step. */
    static final class Crash extends RuntimeException {
        Crash(String step) {
            super("crash after " + step);
        }
    }

    static TestServer server;
    static Jdbi jdbi;
    static SecretBox secrets;
    static String accountId;
    static final List<Object[]> made = new ArrayList<>();

    @BeforeAll
    static void start() {
        server = TestServer.start(Dialect.H2, c -> c.databaseAdmins(DbServers.postgresAdmin(), DbServers.mysqlAdmin()));
        jdbi = server.slipway().database().jdbi();
        secrets = SecretBox.fromBase64(server.store().secretKey());
        accountId = server.tenant(Tier.TEAM).account().id();
    }

    @AfterAll
    static void stop() {
        try {
            for (Object[] m : made) DbServers.dropMade((DbKind) m[0], (String) m[1]);
            for (Object[] m : made) {
                assertThat(DbServers.databaseExists((DbKind) m[0], (String) m[1])).isFalse();
                assertThat(DbServers.userExists((DbKind) m[0], (String) m[1])).isFalse();
            }
        } finally {
            server.close();
        }
    }

    static DatabaseService service(Provisioner.Steps steps) {
        return new DatabaseService(jdbi, AdminServers.of(DbServers.postgresAdmin(), DbServers.mysqlAdmin()), secrets,
                server.slipway().stores().logs(), MicrosClock.system(), ProjectChanges.NONE, steps);
    }

    /** A project with a pending migration and its recorded (not yet made) database: {projectId, migrationId, dbId}. */
    static String[] recorded(DatabaseService service, DbKind kind) {
        Project project = server.slipway().projects().create(new NewProject(accountId,
                "p-" + UUID.randomUUID().toString().substring(0, 8), "github", "acme/x", "main", "node-express",
                "us-east-1", null, Map.of()));
        String migrationId = new Ids(MicrosClock.system()).next("mig");
        String dbId = jdbi.inTransaction(h -> {
            String id = service.record(h, accountId, project.id(), migrationId,
                    service.plan(kind.label(), "create", null, null));
            server.slipway().stores().migrations().insert(h, new Migration(migrationId, accountId, project.id(), null,
                    "github", "acme/x", "main", "node-express", null, kind.label(), "create", id,
                    MigrationStatus.PROCESSING, Instant.now(), Instant.now(), null));
            return id;
        });
        made.add(new Object[]{kind, Identifiers.nameFor(dbId)});
        return new String[]{project.id(), migrationId, dbId};
    }

    static ProjectDatabase row(String dbId) {
        return new DatabaseStore(jdbi, MicrosClock.system(), ProjectChanges.NONE).find(dbId).orElseThrow();
    }

    /**
     * The databases and users on the admin server named for a database row of this test's store: every object the
     * service makes is named for its row. Other test classes make theirs on the same server at the same time.
     */
    static Set<String> slwObjects(DbKind kind) {
        Set<String> ours = new HashSet<>(jdbi.withHandle(h -> h.createQuery("SELECT id FROM databases")
                .mapTo(String.class).map(Identifiers::nameFor).list()));
        Set<String> objects = new HashSet<>(DbServers.leftovers(kind, "slw"));
        objects.retainAll(ours);
        return objects;
    }

    /** Writes and reads a row as the database's own user, through its DATABASE_URL. */
    static void writeAndRead(DbKind kind, String databaseUrl) throws SQLException {
        try (Connection c = Connections.open(DbAddress.parse(databaseUrl)); var s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS notes (id INT PRIMARY KEY, v VARCHAR(20))");
            s.execute("INSERT INTO notes VALUES (1, 'hello')");
            try (var rs = s.executeQuery("SELECT v FROM notes")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo("hello");
            }
        }
    }

    @ParameterizedTest
    @EnumSource(DbKind.class)
    void createMakesADatabaseAndUserThatTheUrlReaches(DbKind kind) throws Exception {
        DatabaseService service = service(Provisioner.Steps.NONE);
        String[] ids = recorded(service, kind);
        String name = Identifiers.nameFor(ids[2]);
        assertThat(row(ids[2]).state()).isEqualTo(DatabaseState.PROVISIONING);
        assertThat(DbServers.databaseExists(kind, name)).as("nothing is made at record time").isFalse();

        List<String> lines = new ArrayList<>();
        service.prepare(ids[0], (level, message) -> lines.add(message));
        assertThat(row(ids[2]).state()).isEqualTo(DatabaseState.READY);
        assertThat(DbServers.databaseExists(kind, name)).isTrue();
        assertThat(DbServers.userExists(kind, name)).isTrue();

        DatabaseService.Link link = service.link(ids[0]).orElseThrow();
        String password = secrets.decrypt(row(ids[2]).secretEnc());
        DbAddress admin = DbServers.adminAddress(kind);
        assertThat(link.url()).isEqualTo(kind.label() + "://" + name + ":" + password + "@" + admin.host() + ":"
                + admin.port() + "/" + name);
        assertThat(password).matches("[A-Za-z0-9]{32}");
        assertThat(link.secrets()).contains(password, link.url());
        assertThat(String.join("\n", lines)).contains(name).doesNotContain(password);
        writeAndRead(kind, link.url());

        // a wrong password is refused (MariaDB checks; the local PostgreSQL trusts loopback, so only MariaDB here)
        if (kind == DbKind.MYSQL) {
            assertThatThrownBy(() -> Connections.open(DbAddress.parse(link.url()).with(name, name, "wrong")).close())
                    .isInstanceOf(SQLException.class);
        }
        // ready: prepare again only says which database is used, makes nothing more
        Set<String> before = slwObjects(kind);
        service.prepare(ids[0], LogSink.DISCARD);
        assertThat(slwObjects(kind)).isEqualTo(before);
    }

    @ParameterizedTest
    @EnumSource(DbKind.class)
    void aStopAfterAnyStepResumesIntoExactlyOneDatabaseAndUser(DbKind kind) throws Exception {
        List<String> steps = kind == DbKind.POSTGRES ? List.of("role", "database", "grants") : List.of("database", "user", "grants");
        for (String step : steps) {
            Set<String> before = slwObjects(kind);
            DatabaseService crashing = service(s -> {
                if (s.equals(step)) throw new Crash(s);
            });
            String[] ids = recorded(crashing, kind);
            String name = Identifiers.nameFor(ids[2]);
            assertThatThrownBy(() -> crashing.prepare(ids[0], LogSink.DISCARD)).isInstanceOf(Crash.class);
            assertThat(row(ids[2]).state()).as("after a stop at " + step).isEqualTo(DatabaseState.PROVISIONING);
            Set<String> half = slwObjects(kind);
            half.removeAll(before);
            assertThat(half).as("half made after " + step).containsExactly(name);

            // the restarted server: a new service over the same store resumes the same database
            DatabaseService restarted = service(Provisioner.Steps.NONE);
            restarted.prepare(ids[0], LogSink.DISCARD);
            assertThat(row(ids[2]).state()).isEqualTo(DatabaseState.READY);
            Set<String> added = slwObjects(kind);
            added.removeAll(before);
            assertThat(added).as("resumed after " + step + ": one database and one user, both " + name).containsExactly(name);
            assertThat(DbServers.databaseExists(kind, name)).isTrue();
            assertThat(DbServers.userExists(kind, name)).isTrue();
            writeAndRead(kind, restarted.link(ids[0]).orElseThrow().url());
        }
    }

    @ParameterizedTest
    @EnumSource(DbKind.class)
    void aFailedMigrationLeavesNothingItMade(DbKind kind) {
        DatabaseService service = service(Provisioner.Steps.NONE);
        String[] ids = recorded(service, kind);
        String name = Identifiers.nameFor(ids[2]);
        service.prepare(ids[0], LogSink.DISCARD);
        assertThat(DbServers.databaseExists(kind, name)).isTrue();

        // not failed: release removes nothing
        service.release(ids[0], ids[1]);
        assertThat(DbServers.databaseExists(kind, name)).isTrue();

        failMigration(ids[1]);
        service.release(ids[0], ids[1]);
        assertThat(DbServers.databaseExists(kind, name)).isFalse();
        assertThat(DbServers.userExists(kind, name)).isFalse();
        ProjectDatabase after = row(ids[2]);
        assertThat(after.state()).isEqualTo(DatabaseState.DROPPED);
        assertThat(after.secretEnc()).as("the password is forgotten").isNull();
        assertThat(service.link(ids[0])).isEmpty();
        assertThatThrownBy(() -> service.prepare(ids[0], LogSink.DISCARD))
                .hasMessageContaining("was removed when its migration failed");
        assertThat(server.slipway().stores().logs().after(ids[1], 0, 100))
                .anyMatch(e -> e.message().contains("Removed the " + kind.label() + " database " + ids[2]));
    }

    @ParameterizedTest
    @EnumSource(DbKind.class)
    void afterACrashBetweenFailingAndRemovingTheSweepRemovesIt(DbKind kind) {
        String[] ids = recorded(service(Provisioner.Steps.NONE), kind);
        String name = Identifiers.nameFor(ids[2]);
        DatabaseService crashing = service(s -> {
            if (s.equals("grants")) throw new Crash(s);
        });
        assertThatThrownBy(() -> crashing.prepare(ids[0], LogSink.DISCARD)).isInstanceOf(Crash.class);
        failMigration(ids[1]); // the migration failed, and the server stopped before removing the half-made database
        assertThat(DbServers.databaseExists(kind, name)).isTrue();

        service(Provisioner.Steps.NONE).sweep(); // what the restarted server does
        assertThat(DbServers.databaseExists(kind, name)).isFalse();
        assertThat(DbServers.userExists(kind, name)).isFalse();
        assertThat(row(ids[2]).state()).isEqualTo(DatabaseState.DROPPED);
    }

    static void failMigration(String migrationId) {
        assertThat(server.slipway().stores().migrations().transition(migrationId, MigrationStatus.PROCESSING,
                MigrationStatus.FAILED, Level.ERROR, "Migration failed: test")).isTrue();
    }
}
