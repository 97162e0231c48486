package dev.slipway.kubernetes;

import dev.slipway.build.Artifact;
import dev.slipway.net.EgressAllow;
import dev.slipway.runtime.AppRuntime;
import dev.slipway.runtime.AppRuntimeContract;
import dev.slipway.runtime.AppSpec;
import dev.slipway.runtime.Instance;
import dev.slipway.runtime.InstanceType;
import dev.slipway.runtime.ProductionAddresses;
import dev.slipway.runtime.RetirementSchedule;
import dev.slipway.runtime.RuntimeSettings;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.RecordingLog;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The runtime contract on fabric8's mock API server, with {@link ClusterPlayer} playing the kubelet (pods ready,
 * or never for {@link #neverHealthyApp}) and kube-proxy (each Service reachable on loopback). The cluster is the
 * state: each runtime of a test is another server on it.
 */
@EnableKubernetesMockClient(crud = true, https = false)
@EndToEnd
class KubernetesRuntimeContractTest extends AppRuntimeContract {
    static KubernetesMockServer server;
    static KubernetesClient client;

    private static final String NS = "slipway-apps";
    private static final String IMAGE = "registry.test/slipway/prj_c@sha256:" + "cd".repeat(32);

    private ClusterPlayer cluster;

    @BeforeEach
    void setUp() {
        client.apps().deployments().inNamespace(NS).delete();
        client.services().inNamespace(NS).delete();
        client.network().v1().networkPolicies().inNamespace(NS).delete();
        client.secrets().inNamespace(NS).delete();
        client.pods().inNamespace(NS).delete();
        cluster = new ClusterPlayer(client);
    }

    @Override
    protected AppRuntime newRuntime(Duration healthTimeout) {
        return kubernetesRuntime(healthTimeout);
    }

    private KubernetesRuntime kubernetesRuntime(Duration healthTimeout) {
        // the runtime closes its client on close(): each gets its own
        return new KubernetesRuntime(server.createClient(), KubernetesSettings.LOCAL.withEnabled(true), EgressAllow.NONE,
                RuntimeSettings.defaults(REGIONS).withHealthTimeout(healthTimeout), Clock.systemUTC(),
                artifact -> Optional.of(IMAGE), project -> "acc_1", deployment -> false);
    }

    @Override
    protected AppSpec healthyApp() {
        String id = "dep_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        Artifact artifact = new Artifact("art_" + id, "prj_c", "node", "abc123", Path.of("/nonexistent/art_" + id),
                List.of("node", "server.js"), null, Instant.now());
        return new AppSpec(id, "prj_c", artifact, Map.of("GREETING", "hi"), Set.of(), InstanceType.STARTER);
    }

    @Override
    protected AppSpec neverHealthyApp() {
        AppSpec spec = healthyApp();
        cluster.neverReady.add(spec.deploymentId());
        return spec;
    }

    /** What the played kubelet's stand-in pod answers. */
    @Override
    protected String answerOf(AppSpec spec) {
        return "app " + spec.deploymentId();
    }

    @Override
    protected boolean runsReleaseCommands() {
        return false;
    }

    @Override
    protected String instanceType() {
        return "kubernetes";
    }

    /** Its four objects are deleted (a deployment never ready is not kept for a rollback). */
    @Override
    protected void assertNothingLeftOf(AppSpec spec, RecordingLog log) {
        String name = Names.deployment(spec.deploymentId());
        List<Object> objects = new ArrayList<>();
        objects.add(client.apps().deployments().inNamespace(NS).withName(name).get());
        objects.add(client.services().inNamespace(NS).withName(name).get());
        objects.add(client.network().v1().networkPolicies().inNamespace(NS).withName(name).get());
        objects.add(client.secrets().inNamespace(NS).withName(Names.secret(spec.deploymentId())).get());
        assertThat(objects).containsOnlyNulls();
    }

    /** Scaled to zero with its objects kept: a cold rollback or a wake-up scales it up again. */
    @Override
    protected void assertStoppedHere(AppSpec spec, Instance stopped) {
        String name = Names.deployment(spec.deploymentId());
        assertThat(client.apps().deployments().inNamespace(NS).withName(name).get().getSpec().getReplicas()).isZero();
        assertThat(client.services().inNamespace(NS).withName(name).get()).isNotNull();
        assertThat(client.network().v1().networkPolicies().inNamespace(NS).withName(name).get()).isNotNull();
        assertThat(client.secrets().inNamespace(NS).withName(Names.secret(spec.deploymentId())).get()).isNotNull();
    }

    /** Callers reach the production Service and the schedule on the Deployments through the runtime's accessors. */
    @Test
    void ownsTheProductionAddressesAndKeepsTheRetirementSchedule_kubeletAndKubeProxyPlayed() {
        AppRuntime runtime = kubernetesRuntime(Duration.ofSeconds(60));
        try {
            ProductionAddresses addresses = runtime.productionAddresses().orElseThrow();
            RetirementSchedule schedule = runtime.retirementSchedule().orElseThrow();
            assertThat(addresses).isSameAs(runtime);
            assertThat(schedule).isSameAs(runtime);
            AppSpec spec = healthyApp();
            runtime.start(spec, new RecordingLog());

            Instance production = addresses.switchProduction(spec.projectId(), spec.deploymentId());
            assertThat(answerAt(production)).isEqualTo(answerOf(spec));
            assertThat(addresses.production(spec.projectId()))
                    .hasValueSatisfying(p -> assertThat(p.deploymentId() + "@" + p.host() + ":" + p.port())
                            .isEqualTo(spec.deploymentId() + "@" + production.host() + ":" + production.port()));

            Instant stopAt = Instant.parse("2030-01-01T00:00:00Z");
            schedule.retiringUntil(spec.deploymentId(), stopAt);
            assertThat(schedule.retirements()).containsExactly(Map.entry(spec.deploymentId(), stopAt));
        } finally {
            runtime.close();
        }
    }

    @Override
    protected void afterRuntimesClosed() {
        try {
            cluster.close();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
