package dev.slipway.kubernetes;

import dev.slipway.isolation.CellUsage;
import dev.slipway.testing.MutableClock;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.metrics.v1beta1.PodMetricsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A deployment's pods as the app metrics read them, against fabric8's mock API server in CRUD mode playing the kubelet
 * (the pods' statuses) and metrics-server (their {@code metrics.k8s.io} usage): CPU time summed from the rate over the
 * reads, the working set, an out-of-memory kill counted once, and a crash loop only while the kubelet says so. Another
 * deployment's pods in the namespace count for nothing.
 */
@EnableKubernetesMockClient(crud = true, https = false)
class PodUsageTest {
    static final String NS = "slipway-apps";
    KubernetesMockServer server;
    KubernetesClient client;

    @Test
    void podsReadAsACellsUsageAndACrashLoopAsTheKubeletSaysIt() {
        MutableClock clock = new MutableClock();
        PodUsage usage = new PodUsage(client, clock);
        assertThat(usage.read(NS, "dep_1")).as("no pod yet").isEmpty();

        pod("dep_1", "a", "running", 0, null);
        pod("dep_1", "b", "running", 0, null);
        pod("dep_2", "c", "running", 0, null);
        metrics("dep_1", "a", "250m", "64Mi");
        metrics("dep_1", "b", "500m", "32Mi");
        metrics("dep_2", "c", "4", "1Gi");

        CellUsage first = usage.read(NS, "dep_1").orElseThrow();
        assertThat(first.memoryBytes()).isEqualTo(96L * 1024 * 1024);
        assertThat(first.cpuNanos()).as("a rate needs two reads").isZero();
        assertThat(first.processes()).isEqualTo(2);
        clock.advance(Duration.ofSeconds(10));
        CellUsage second = usage.read(NS, "dep_1").orElseThrow();
        assertThat(second.cpuNanos()).as("0.75 cores for 10 s").isEqualTo(7_500_000_000L);
        assertThat(second.oomKills()).isZero();
        assertThat(usage.crashesInARow(NS, "dep_1")).isZero();

        // pod a is killed for its memory and then loops: one kill, counted once however often it is read
        pod("dep_1", "a", "CrashLoopBackOff", 3, "OOMKilled");
        clock.advance(Duration.ofSeconds(10));
        assertThat(usage.read(NS, "dep_1").orElseThrow().oomKills()).isEqualTo(1);
        assertThat(usage.read(NS, "dep_1").orElseThrow().oomKills()).isEqualTo(1);
        assertThat(usage.crashesInARow(NS, "dep_1")).isEqualTo(3);
        pod("dep_1", "a", "CrashLoopBackOff", 4, "OOMKilled");
        assertThat(usage.read(NS, "dep_1").orElseThrow().oomKills()).as("a second kill").isEqualTo(2);
        pod("dep_1", "a", "running", 4, "OOMKilled");
        assertThat(usage.crashesInARow(NS, "dep_1")).as("up again: none in a row").isZero();

        // a server that looks for the first time takes the kills already shown as before its time
        PodUsage another = new PodUsage(client, clock);
        assertThat(another.read(NS, "dep_1").orElseThrow().oomKills()).isZero();
        // reads more than a minute apart (another server reported meanwhile) add no CPU time
        clock.advance(Duration.ofMinutes(5));
        assertThat(another.read(NS, "dep_1").orElseThrow().cpuNanos()).isZero();
    }

    private void pod(String deployment, String name, String state, int restarts, String lastReason) {
        var status = new ContainerStatusBuilder().withName("app").withRestartCount(restarts);
        if (state.equals("running")) status.withNewState().withNewRunning().endRunning().endState();
        else status.withNewState().withNewWaiting().withReason(state).endWaiting().endState();
        if (lastReason != null) status.withNewLastState().withNewTerminated().withReason(lastReason).withExitCode(137).endTerminated().endLastState();
        Pod pod = new PodBuilder().withNewMetadata().withName(name).withNamespace(NS).withUid("uid-" + name)
                .withLabels(Names.selector(deployment)).endMetadata()
                .withNewStatus().withContainerStatuses(status.build()).endStatus().build();
        client.pods().inNamespace(NS).resource(pod).createOr(existing -> existing.update());
    }

    private void metrics(String deployment, String pod, String cpu, String memory) {
        client.resource(new PodMetricsBuilder().withNewMetadata().withName(pod).withNamespace(NS)
                .withLabels(Names.selector(deployment)).endMetadata()
                .addNewContainer().withName("app").withUsage(Map.of("cpu", new Quantity(cpu), "memory", new Quantity(memory))).endContainer()
                .build()).create();
    }
}
