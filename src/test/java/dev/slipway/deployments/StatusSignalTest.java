package dev.slipway.deployments;

import dev.slipway.accounts.Tier;
import dev.slipway.logs.Level;
import dev.slipway.projects.NewProject;
import dev.slipway.projects.Project;
import dev.slipway.store.StoreKind;
import dev.slipway.testing.TestServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** A status change made through the store wakes this server's long-polls once it is committed, not before. */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.slipway.testing.TestStore#kinds")
class StatusSignalTest {
    @Parameter
    StoreKind kind;

    static TestServer server;

    @BeforeParameterizedClassInvocation
    static void start(StoreKind kind) {
        server = TestServer.start(kind);
    }

    @AfterParameterizedClassInvocation
    static void stop() {
        server.close();
    }

    @Test
    void aTransitionSignalsAfterItsCommit() throws Exception {
        var tenant = server.tenant(Tier.TEAM);
        DeploymentStore store = server.slipway().stores().deployments();
        Project project = server.slipway().projects().create(new NewProject(tenant.account().id(),
                "signal-" + Long.toHexString(System.nanoTime()), "zip", null, null, "node-express", "us-east-1", null, Map.of()));
        String id = "dep_sig" + Long.toHexString(System.nanoTime());
        Instant at = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        store.jdbi().useHandle(h -> store.insert(h, new Deployment(id, tenant.account().id(), project.id(), null, null, null,
                null, DeploymentStatus.QUEUED, null, null, null, null, "us-east-1", "local", null, at, null, null, false, null)));

        long seen = store.changes().watch(id);
        try {
            store.jdbi().useTransaction(h -> {
                assertThat(store.transition(h, id, DeploymentStatus.QUEUED, DeploymentStatus.BUILDING, Level.INFO, "Build started")).isTrue();
                assertThat(store.changes().await(id, seen, 0, TimeUnit.MILLISECONDS)).as("not before the commit").isEqualTo(seen);
            });
            long afterCommit = store.changes().await(id, seen, 0, TimeUnit.MILLISECONDS);
            assertThat(afterCommit).as("after the commit").isEqualTo(seen + 1);

            assertThat(store.transition(id, DeploymentStatus.QUEUED, DeploymentStatus.DEPLOYING, Level.INFO, "wrong from")).isFalse();
            assertThat(store.changes().await(id, afterCommit, 0, TimeUnit.MILLISECONDS)).as("no change, no signal").isEqualTo(afterCommit);

            assertThat(store.transition(id, DeploymentStatus.BUILDING, DeploymentStatus.FAILED, Level.ERROR, "failed")).isTrue();
            assertThat(store.changes().await(id, afterCommit, 0, TimeUnit.MILLISECONDS)).isEqualTo(afterCommit + 1);
        } finally {
            store.changes().unwatch(id);
        }
    }
}
