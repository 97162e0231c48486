package dev.slipway.kubernetes;

import dev.slipway.isolation.CellUsage;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.metrics.v1beta1.ContainerMetrics;
import io.fabric8.kubernetes.api.model.metrics.v1beta1.PodMetrics;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

import java.math.BigDecimal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a deployment's pods use, as a cell's {@link CellUsage}: memory (the working set) and CPU from the cluster's
 * metrics API ({@code metrics.k8s.io}, served by metrics-server), and the containers' restarts and out-of-memory kills
 * from the pods' statuses. The metrics API gives a rate, so the CPU time is its sum over the reads: each read adds the
 * rate times the time since the one before.
 */
final class PodUsage {
    /** Reads further apart than this (another server reported meanwhile) add no CPU time: the rate is not known between. */
    static final Duration MAX_GAP = Duration.ofMinutes(1);
    private final KubernetesClient client;
    private final Clock clock;
    private final Map<String, Totals> totals = new ConcurrentHashMap<>();

    /** A deployment's running sums: CPU nanoseconds, OOM kills, and the restart of each container last counted as one. */
    private static final class Totals {
        long cpuNanos;
        Instant readAt;
        long oomKills;
        final Map<String, Integer> oomCounted = new ConcurrentHashMap<>();
    }

    PodUsage(KubernetesClient client, Clock clock) {
        this.client = client;
        this.clock = clock;
    }

    /** Empty when the cluster has no metrics API (no metrics-server) or the deployment no pod. */
    Optional<CellUsage> read(String namespace, String deploymentId) {
        List<Pod> pods = pods(namespace, deploymentId);
        if (pods.isEmpty()) return Optional.empty();
        Totals t = totals.computeIfAbsent(deploymentId, k -> new Totals());
        long memory = 0;
        BigDecimal cores = BigDecimal.ZERO;
        boolean measured = false;
        try {
            for (PodMetrics m : client.top().pods().withLabels(Names.selector(deploymentId)).metrics(namespace).getItems()) {
                for (ContainerMetrics c : m.getContainers()) {
                    Quantity cpu = c.getUsage().get("cpu");
                    Quantity mem = c.getUsage().get("memory");
                    if (cpu != null) cores = cores.add(cpu.getNumericalAmount());
                    if (mem != null) memory += mem.getNumericalAmount().longValue();
                    measured = true;
                }
            }
        } catch (KubernetesClientException noMetricsApi) {
            // a cluster without metrics-server: restarts and kills only
        }
        Instant now = clock.instant();
        synchronized (t) {
            // the first read takes the kills the pods already show as known: they happened before this server looked
            boolean first = t.readAt == null;
            if (!first && measured) {
                long elapsed = Duration.between(t.readAt, now).toNanos();
                if (elapsed > 0 && elapsed <= MAX_GAP.toNanos()) t.cpuNanos += cores.multiply(BigDecimal.valueOf(elapsed)).longValue();
            }
            t.readAt = now;
            int containers = 0;
            for (Pod pod : pods) {
                for (ContainerStatus s : statuses(pod)) {
                    containers++;
                    var last = s.getLastState() == null ? null : s.getLastState().getTerminated();
                    String key = pod.getMetadata().getUid() + "/" + s.getName();
                    if (last != null && "OOMKilled".equals(last.getReason())
                            && !Integer.valueOf(restarts(s)).equals(t.oomCounted.get(key))) {
                        t.oomCounted.put(key, restarts(s));
                        if (!first) t.oomKills++;
                    }
                }
            }
            return Optional.of(new CellUsage(t.cpuNanos, memory, 0, containers, t.oomKills));
        }
    }

    /**
     * The web process's crashes in a row as the crash-loop alert reads them: its restarts, counted only while a
     * container waits in {@code CrashLoopBackOff} (the kubelet's own verdict); a container up again has none in a row.
     */
    int crashesInARow(String namespace, String deploymentId) {
        int inARow = 0;
        for (Pod pod : pods(namespace, deploymentId)) {
            for (ContainerStatus s : statuses(pod)) {
                var waiting = s.getState() == null ? null : s.getState().getWaiting();
                if (waiting != null && "CrashLoopBackOff".equals(waiting.getReason())) inARow = Math.max(inARow, restarts(s));
            }
        }
        return inARow;
    }

    void forget(String deploymentId) {
        totals.remove(deploymentId);
    }

    private List<Pod> pods(String namespace, String deploymentId) {
        try {
            return client.pods().inNamespace(namespace).withLabels(Names.selector(deploymentId)).list().getItems();
        } catch (KubernetesClientException e) {
            return List.of();
        }
    }

    private static List<ContainerStatus> statuses(Pod pod) {
        return pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null ? new ArrayList<>()
                : pod.getStatus().getContainerStatuses();
    }

    private static int restarts(ContainerStatus s) {
        return s.getRestartCount() == null ? 0 : s.getRestartCount();
    }
}
