package dev.slipway.deployments;

import dev.slipway.accounts.Account;
import dev.slipway.accounts.AccountStore;
import dev.slipway.accounts.Tier;
import dev.slipway.core.MicrosClock;
import dev.slipway.core.StatusChanges;
import dev.slipway.logs.Level;
import dev.slipway.logs.LogStore;
import dev.slipway.projects.NewProject;
import dev.slipway.projects.Project;
import dev.slipway.projects.ProjectCache;
import dev.slipway.projects.ProjectStore;
import dev.slipway.secrets.SecretBox;
import dev.slipway.store.Database;
import dev.slipway.store.StatusNotices;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Await;
import dev.slipway.testing.DatabasePerStore;
import dev.slipway.testing.EachStore;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Status changes of the deployment store: their signal to long-polls, and the end of a build. */
@EachStore
class DeploymentStoreTest {
    @RegisterExtension
    static final DatabasePerStore db = DatabasePerStore.open(4);

    static LogStore logs;
    static DeploymentStore store;
    static AccountStore accounts;
    static ProjectStore projects;

    @EachStore.Before
    static void stores() {
        Clock clock = MicrosClock.system();
        logs = new LogStore(db.jdbi(), clock);
        store = new DeploymentStore(db.jdbi(), clock, logs);
        accounts = new AccountStore(db.jdbi(), clock);
        projects = new ProjectStore(db.jdbi(), clock, SecretBox.fromBase64(db.store().secretKey()), new ProjectCache(clock));
    }

    @EachStore.After
    static void close() {
        logs.close();
    }

    /** A new deployment with the given status, in a project of its own. */
    private String deployment(DeploymentStatus status) {
        Account account = accounts.create("t-" + UUID.randomUUID().toString().substring(0, 12), Tier.TEAM, null);
        Project project = projects.create(new NewProject(account.id(),
                "store-" + Long.toHexString(System.nanoTime()), "zip", null, null, "node-express", "us-east-1", null, Map.of()));
        String id = "dep_st" + Long.toHexString(System.nanoTime());
        Instant at = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        store.jdbi().useHandle(h -> store.insert(h, new Deployment(id, account.id(), project.id(), null, null, null,
                null, status, null, null, null, null, "us-east-1", "local", null, at, null, null, false, null)));
        return id;
    }

    @Test
    void aTransitionSignalsAfterItsCommit() throws Exception {
        String id = deployment(DeploymentStatus.QUEUED);

        long seen = store.changes().watch(id);
        try {
            store.jdbi().useTransaction(h -> {
                assertThat(store.transition(h, id, DeploymentStatus.QUEUED, DeploymentStatus.BUILDING, Level.INFO, "Build started")).isTrue();
                assertThat(store.changes().await(id, seen, 0, TimeUnit.MILLISECONDS)).as("not before the commit").isEqualTo(seen);
            });
            long afterCommit = store.changes().await(id, seen, 0, TimeUnit.MILLISECONDS);
            assertThat(afterCommit).as("at the commit, not later").isGreaterThan(seen);

            assertThat(store.transition(id, DeploymentStatus.QUEUED, DeploymentStatus.DEPLOYING, Level.INFO, "wrong from")).isFalse();
            if (db.kind() == Dialect.H2) { // on PostgreSQL the store's notice of the first change may still come in
                assertThat(store.changes().await(id, afterCommit, 0, TimeUnit.MILLISECONDS)).as("no change, no signal").isEqualTo(afterCommit);
            }

            long beforeFailure = store.changes().await(id, afterCommit, 0, TimeUnit.MILLISECONDS);
            assertThat(store.transition(id, DeploymentStatus.BUILDING, DeploymentStatus.FAILED, Level.ERROR, "failed")).isTrue();
            assertThat(store.changes().await(id, beforeFailure, 0, TimeUnit.MILLISECONDS)).isGreaterThan(beforeFailure);
        } finally {
            store.changes().unwatch(id);
        }
    }

    /** A deployment of the project in {@code like}'s, with these fields. */
    private String another(String like, DeploymentStatus status, String rollbackOf, String uploadId, String target) {
        Deployment first = store.find(like).orElseThrow();
        String id = "dep_st" + Long.toHexString(System.nanoTime());
        Instant at = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        store.jdbi().useHandle(h -> store.insert(h, new Deployment(id, first.accountId(), first.projectId(), null, null, null,
                null, status, rollbackOf, null, null, null, "us-east-1", "local", null, at, null, null, false, uploadId, null,
                target, null)));
        return id;
    }

    @Test
    void aRedeployAfterARollbackBuildsTheLatestUploadNotTheRollbacksOlderOne() {
        String first = deployment(DeploymentStatus.LIVE);
        String projectId = store.find(first).orElseThrow().projectId();
        store.jdbi().useHandle(h -> h.createUpdate("UPDATE deployments SET upload_id = 'upl_first' WHERE id = :id").bind("id", first).execute());
        String second = another(first, DeploymentStatus.LIVE, null, "upl_second", Deployment.PRODUCTION);
        assertThat(store.latestUploadId(projectId)).contains("upl_second");
        another(first, DeploymentStatus.LIVE, first, "upl_first", Deployment.PRODUCTION); // the rollback runs the first build again
        assertThat(store.latestUploadId(projectId)).as("a rollback builds nothing").contains("upl_second");
        assertThat(second).isNotEqualTo(first);
    }

    @Test
    void anAppRecoveredAfterARestartWritesToTheLogOfTheNewestRollbackToIt() {
        String owner = deployment(DeploymentStatus.LIVE);
        assertThat(store.outputLogOf(owner)).as("no rollback to it: its own log").isEqualTo(owner);
        another(owner, DeploymentStatus.FAILED, owner, null, Deployment.PRODUCTION);
        assertThat(store.outputLogOf(owner)).as("a rollback that never went live").isEqualTo(owner);
        String first = another(owner, DeploymentStatus.ROLLED_BACK, owner, null, Deployment.PRODUCTION);
        assertThat(store.outputLogOf(owner)).isEqualTo(first);
        // in the same millisecond the later id wins
        String second = another(owner, DeploymentStatus.LIVE, owner, null, Deployment.PRODUCTION);
        assertThat(store.outputLogOf(owner)).isEqualTo(second);
    }

    @Test
    void aDeploymentsLogEndsWhenItFailsOrServesNoMore() {
        String building = deployment(DeploymentStatus.BUILDING);
        assertThat(store.logEnded(building)).isFalse();
        String failed = deployment(DeploymentStatus.FAILED);
        assertThat(store.logEnded(failed)).isTrue();
        String live = deployment(DeploymentStatus.LIVE);
        String projectId = store.find(live).orElseThrow().projectId();
        assertThat(store.logEnded(live)).as("live, but not production: it serves no more").isTrue();
        store.jdbi().useHandle(h -> h.createUpdate("UPDATE projects SET production_deployment_id = :d WHERE id = :p")
                .bind("d", live).bind("p", projectId).execute());
        assertThat(store.logEnded(live)).as("production").isFalse();
        String preview = another(live, DeploymentStatus.LIVE, null, null, Deployment.PREVIEW);
        assertThat(store.logEnded(preview)).as("a live preview serves").isFalse();
        assertThat(store.logEnded("dep_unknown")).isTrue();
    }

    @Test
    void aMoveTheTableRefusesFailsAndChangesNothing() {
        assertThat(DeploymentStatus.MACHINE.allowed(DeploymentStatus.QUEUED, DeploymentStatus.DEPLOYING)).as("a rollback").isTrue();
        assertThat(DeploymentStatus.MACHINE.allowed(DeploymentStatus.FAILED, DeploymentStatus.LIVE)).isFalse();
        String id = deployment(DeploymentStatus.FAILED);
        Assertions.assertThatThrownBy(() -> store.transition(id, DeploymentStatus.FAILED,
                        DeploymentStatus.LIVE, Level.SUCCESS, "live"))
                .isInstanceOf(IllegalStateException.class).hasMessage("illegal deployment transition failed → live");
        assertThat(store.find(id).orElseThrow().status()).isEqualTo(DeploymentStatus.FAILED);
    }

    @Test
    void theEndOfABuildIsRecordedWithTheMoveToDeployingUnlessACancelCameFirst() {
        String built = deployment(DeploymentStatus.BUILDING);
        assertThat(store.recordBuild(built, "art_1", 7, "Build finished")).isTrue();
        Deployment d = store.find(built).orElseThrow();
        assertThat(d.status()).isEqualTo(DeploymentStatus.DEPLOYING);
        assertThat(d.artifactId()).isEqualTo("art_1");
        assertThat(d.buildDurationSeconds()).isEqualTo(7);

        String cancelled = deployment(DeploymentStatus.BUILDING);
        assertThat(store.requestCancel(cancelled)).isTrue();
        assertThat(store.recordBuild(cancelled, "art_2", 7, "Build finished")).isFalse();
        Deployment c = store.find(cancelled).orElseThrow();
        assertThat(c.status()).isEqualTo(DeploymentStatus.BUILDING);
        assertThat(c.artifactId()).isNull();

        // resumed after a crash past the build: the build is recorded, the status stays
        String resumed = deployment(DeploymentStatus.DEPLOYING);
        assertThat(store.recordBuild(resumed, "art_3", 7, "Build finished")).isFalse();
        assertThat(store.find(resumed).orElseThrow().artifactId()).isEqualTo("art_3");
    }

    @Test
    void onPostgresqlAStatusChangedThroughAnotherServerEndsTheWaitsHereToo() throws Exception {
        assumeTrue(db.kind() == Dialect.POSTGRES, "one server per embedded store");
        String id = deployment(DeploymentStatus.QUEUED);
        // another server's store: its own pool, and its status changes told by the store's notices
        try (Database peer = Database.open(db.store().jdbcUrl(), 2); LogStore peerLogs = new LogStore(peer.jdbi(), MicrosClock.system())) {
            StatusChanges peerChanges = new DeploymentStore(peer.jdbi(), MicrosClock.system(), peerLogs).changes();
            peer.listen(Map.of(StatusNotices.CHANNEL, StatusNotices.to(List.of(peerChanges))));
            // the peer listens soon after its start; a notice of our own on the channel shows when
            long probed = peerChanges.watch("probe");
            try {
                Await.until(Duration.ofSeconds(10), "the peer's status feed to listen", () -> {
                    store.jdbi().useHandle(h -> h.execute("SELECT pg_notify(?, 'probe')", StatusNotices.CHANNEL));
                    try {
                        return peerChanges.await("probe", probed, 100, TimeUnit.MILLISECONDS) != probed;
                    } catch (InterruptedException e) {
                        throw new AssertionError(e);
                    }
                });
            } finally {
                peerChanges.unwatch("probe");
            }

            long seen = peerChanges.watch(id);
            try {
                assertThat(store.transition(id, DeploymentStatus.QUEUED, DeploymentStatus.BUILDING, Level.INFO, "Build started")).isTrue();
                assertThat(peerChanges.await(id, seen, 10, TimeUnit.SECONDS)).as("the peer is told by the store").isGreaterThan(seen);
                long after = peerChanges.await(id, seen, 0, TimeUnit.MILLISECONDS);
                store.recordSource(id, "abc123", "no status change");
                assertThat(peerChanges.await(id, after, 300, TimeUnit.MILLISECONDS)).as("no notice without a status change").isEqualTo(after);
            } finally {
                peerChanges.unwatch(id);
            }
        }
    }
}
