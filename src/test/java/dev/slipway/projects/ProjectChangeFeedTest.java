package dev.slipway.projects;

import dev.slipway.accounts.AccountStore;
import dev.slipway.accounts.Tier;
import dev.slipway.secrets.SecretBox;
import dev.slipway.store.ChangeFeed;
import dev.slipway.store.ChangeNotices;
import dev.slipway.store.Database;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Await;
import dev.slipway.testing.DatabasePerStore;
import dev.slipway.testing.EachStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Project reads through the cache against a real store. The cache's clock stands still, so no entry ever
 * ages out: what a read shows after a change came from the store's notice, or from having kept nothing.
 * A "silent" write is one PostgreSQL's triggers do not see ({@code session_replication_role = replica}):
 * it shows whether the read came from memory.
 */
@EachStore
class ProjectChangeFeedTest {
    private static final Duration NOTICE = Duration.ofSeconds(5);

    final Dialect kind = database.kind();

    @RegisterExtension
    static final DatabasePerStore database = DatabasePerStore.open(4);
    static String accountId;

    ProjectCache cache;
    Database listening;
    ProjectStore projects;
    /** A project made before this server listens, so that no notice of its making is still on the way. */
    String id;

    @EachStore.Before
    static void open() {
        accountId = new AccountStore(database.jdbi(), Clock.systemUTC()).create("acme", Tier.TEAM, null).id();
    }

    @BeforeEach
    void listen() {
        id = new ProjectStore(database.jdbi(), Clock.systemUTC(), SecretBox.fromBase64(database.store().secretKey()),
                new ProjectCache(Clock.systemUTC())).create(new NewProject(accountId,
                "p-" + UUID.randomUUID().toString().substring(0, 8), "github", "acme/app", "main", "node-express",
                "local", null, Map.of())).id();
        cache = new ProjectCache(Clock.fixed(Instant.parse("2026-11-22T08:00:00Z"), ZoneOffset.UTC));
        listening = Database.open(database.store().jdbcUrl(), 2);
        listening.listen(Map.of(ChangeNotices.PROJECTS, cache));
        projects = new ProjectStore(listening.jdbi(), Clock.systemUTC(), SecretBox.fromBase64(database.store().secretKey()), cache);
        if (kind == Dialect.POSTGRES) Await.until(NOTICE, "the change feed to listen", cache::informed);
    }

    @AfterEach
    void stopListening() {
        listening.close();
    }

    /** A write by another server. */
    private void write(String sql, Object... args) {
        database.jdbi().useHandle(h -> h.execute(sql, args));
    }

    private void silently(String sql, Object... args) {
        database.jdbi().useTransaction(h -> {
            h.execute("SET LOCAL session_replication_role = replica");
            h.execute(sql, args);
        });
    }

    private String branch() {
        return projects.shown(id).orElseThrow().project().branch();
    }

    @Test
    void aChangeByAnotherServerIsSeenThroughTheCache() {
        assertThat(branch()).isEqualTo("main");
        if (kind == Dialect.POSTGRES) {
            silently("UPDATE projects SET branch = 'silent' WHERE id = ?", id);
            assertThat(branch()).as("kept in memory").isEqualTo("main");
        }
        write("UPDATE projects SET branch = 'told' WHERE id = ?", id);
        Await.until(NOTICE, "the change to be read", () -> branch().equals("told"));
    }

    @Test
    void envVarsAndTheDatabaseOfAProjectAreTold() {
        assertThat(projects.shown(id).orElseThrow().project().envVarNames()).isEmpty();
        write("INSERT INTO project_env_vars (project_id, name, value_enc) VALUES (?, 'API_TOKEN', 'x')", id);
        Await.until(NOTICE, "the env var name", () -> projects.shown(id).orElseThrow().project().envVarNames().equals(List.of("API_TOKEN")));
        write("""
                INSERT INTO databases (id, account_id, project_id, type, action, host, port, db_name, username, state,
                    created_at, updated_at)
                VALUES ('db_1' || ?, ?, ?, 'postgres', 'create', 'h', 5432, 'd', 'u', 'provisioning', now(), now())""",
                id, accountId, id);
        Await.until(NOTICE, "the database", () -> projects.shown(id).orElseThrow().project().database() != null);
        write("UPDATE databases SET state = 'ready' WHERE project_id = ?", id);
        Await.until(NOTICE, "the database's state", () -> projects.shown(id).orElseThrow().project().database().state().equals("ready"));
    }

    @Test
    void thisServersOwnWriteIsReadAtOnceAfterItsCommit() {
        assertThat(projects.shown(id).orElseThrow().project().productionDeploymentId()).isNull();
        listening.jdbi().useTransaction(h -> {
            projects.setProduction(h, id, "dep_1");
            // another request reading before the commit sees the old row, and must not keep it past the commit
            String seen = CompletableFuture.supplyAsync(() -> projects.shown(id).orElseThrow().project().productionDeploymentId()).join();
            assertThat(seen).isNull();
        });
        assertThat(projects.shown(id).orElseThrow().project().productionDeploymentId()).isEqualTo("dep_1");
    }

    @Test
    void whileTheFeedIsLostNothingIsReadFromMemory() {
        assertThat(branch()).isEqualTo("main");
        if (kind == Dialect.H2) {
            // the embedded store has no feed at all: nothing is kept, a write is read at once
            write("UPDATE projects SET branch = 'written' WHERE id = ?", id);
            assertThat(branch()).isEqualTo("written");
            assertThat(cache.informed()).isFalse();
            return;
        }
        write("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = ? AND datname = current_database()",
                ChangeFeed.APPLICATION_NAME);
        silently("UPDATE projects SET branch = 'while-lost' WHERE id = ?", id);
        // until the feed notices it is gone the old copy may be shown; after that, never again
        Await.until(NOTICE, "the silent change to be read", () -> branch().equals("while-lost"));
        Await.until(NOTICE, "the feed to listen again", cache::informed);
        silently("UPDATE projects SET branch = 'after' WHERE id = ?", id);
        assertThat(branch()).isIn("while-lost", "after");
        write("UPDATE projects SET branch = 'told-again' WHERE id = ?", id);
        Await.until(NOTICE, "a change told after the feed is back", () -> branch().equals("told-again"));
    }
}
