package dev.slipway.runtime.local;

import dev.slipway.core.MicrosClock;
import dev.slipway.runtime.AppRuntime;
import dev.slipway.runtime.AppRuntimeContract;
import dev.slipway.runtime.AppSpec;
import dev.slipway.runtime.Instance;
import dev.slipway.runtime.InstanceStore;
import dev.slipway.runtime.RuntimeSettings;
import dev.slipway.runtime.TestApps;
import dev.slipway.secrets.SecretBox;
import dev.slipway.store.Database;
import dev.slipway.store.Dialect;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.RecordingLog;
import dev.slipway.testing.TestStore;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The runtime contract for local processes: the node test app, unconfined, over an H2 store; each runtime of a
 * test is a start of the same node (one node id), as a restarted server is.
 */
@EndToEnd
class LocalProcessRuntimeContractTest extends AppRuntimeContract {
    private final TestStore testStore = TestStore.create(Dialect.H2);
    private final Database database = Database.open(testStore.jdbcUrl(), 4);
    private final InstanceStore store = new InstanceStore(database.jdbi(), SecretBox.fromBase64(RuntimeFixture.SECRET_KEY),
            MicrosClock.system(), "node_" + UUID.randomUUID().toString().replace("-", ""));

    @Override
    protected AppRuntime newRuntime(Duration healthTimeout) {
        return new LocalProcessRuntime(store, RuntimeSettings.defaults(REGIONS).withHealthTimeout(healthTimeout)
                .withStopGrace(Duration.ofSeconds(2)), MicrosClock.system());
    }

    @Override
    protected AppSpec healthyApp() {
        return TestApps.spec("v1", Map.of());
    }

    @Override
    protected AppSpec neverHealthyApp() {
        return TestApps.spec("v1", Map.of("MODE", "never-listen"));
    }

    @Override
    protected String answerOf(AppSpec spec) {
        return "app:" + spec.env().get("VERSION");
    }

    @Override
    protected boolean runsReleaseCommands() {
        return true;
    }

    @Override
    protected String instanceType() {
        return "local";
    }

    /** Its process is gone and its row too: a restarted server does not start it again. */
    @Override
    protected void assertNothingLeftOf(AppSpec spec, RecordingLog log) {
        assertThat(TestApps.alive(log.printedPid(0))).as("the app process is gone").isFalse();
        assertThat(store.find(spec.deploymentId())).isEmpty();
    }

    /** Its process is gone and its row too. */
    @Override
    protected void assertStoppedHere(AppSpec spec, Instance stopped) {
        assertThat(TestApps.alive(stopped.pid())).as("the app process is gone").isFalse();
        assertThat(store.find(spec.deploymentId())).isEmpty();
    }

    @Test
    void productionIsRoutedToTheInstanceAndTheRetirementScheduleIsTheRowsOnly() {
        AppRuntime runtime = newRuntime(Duration.ofSeconds(60));
        try {
            assertThat(runtime.productionAddresses()).isEmpty();
            assertThat(runtime.retirementSchedule()).isEmpty();
        } finally {
            runtime.close();
        }
    }

    @Override
    protected void afterRuntimesClosed() {
        try {
            database.close();
        } finally {
            testStore.close();
        }
    }
}
