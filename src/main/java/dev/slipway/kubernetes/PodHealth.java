package dev.slipway.kubernetes;

import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;
import dev.slipway.runtime.StartFailedException;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Waits for an app's Kubernetes Deployment to have a ready replica, saying in the deployment's log what goes
 * wrong with its pods as it happens, and giving up early on what will not fix itself.
 * <p>
 * Two informers (the Deployment, then the pods its selector selects) wake the wait on every change; a
 * re-check every {@link #RECHECK} also covers a watch that silently stalls. All logging happens on the
 * calling thread.
 */
public final class PodHealth {
    /** A crash loop fails the deploy once the container has been restarted this many times. */
    static final int MAX_RESTARTS = 3;
    /** An image pull fails the deploy once it has failed this many times (the kubelet backs off in between). */
    static final int PULL_FAILURES = 3;
    static final Duration RECHECK = Duration.ofSeconds(1);

    private PodHealth() {}

    public static void awaitReady(KubernetesClient client, String namespace, String deploymentName, Duration timeout,
                                  LogSink log, Clock clock) throws StartFailedException {
        awaitReady(client, namespace, deploymentName, timeout, log, clock, RECHECK);
    }

    /** {@code recheck}: the longest wait without an event; a test sets it long to see that events wake the wait. */
    static void awaitReady(KubernetesClient client, String namespace, String deploymentName, Duration timeout,
                           LogSink log, Clock clock, Duration recheck) {
        Instant started = clock.instant();
        Instant deadline = started.plus(timeout);
        Semaphore changed = new Semaphore(0);
        ResourceEventHandler<Object> wake = new ResourceEventHandler<>() {
            @Override public void onAdd(Object obj) { changed.release(); }
            @Override public void onUpdate(Object old, Object now) { changed.release(); }
            @Override public void onDelete(Object obj, boolean unknownFinalState) { changed.release(); }
        };
        // every pod state the watch delivers, in order: a state that lasted less than one turn of the loop (a pull's
        // back-off between two failed pulls) still counts, where the store's snapshot would show only the last one
        Queue<Pod> podUpdates = new ConcurrentLinkedQueue<>();
        ResourceEventHandler<Pod> podWake = new ResourceEventHandler<>() {
            @Override public void onAdd(Pod pod) { podUpdates.add(pod); changed.release(); }
            @Override public void onUpdate(Pod old, Pod now) { podUpdates.add(now); changed.release(); }
            @Override public void onDelete(Pod pod, boolean unknownFinalState) { changed.release(); }
        };
        PodProblems problems = new PodProblems(log);
        PodEvents podEvents = new PodEvents(log, deploymentName);
        SharedIndexInformer<Deployment> deployments = null;
        SharedIndexInformer<Pod> pods = null;
        SharedIndexInformer<Event> events = null;
        try {
            deployments = client.apps().deployments().inNamespace(namespace).withName(deploymentName).inform(wake);
            events = events(client, namespace, wake, log);
            while (true) {
                Deployment d = deployments.getStore().list().stream().findFirst().orElse(null);
                if (d != null && pods == null && d.getSpec() != null && d.getSpec().getSelector() != null) {
                    pods = client.pods().inNamespace(namespace).withLabelSelector(d.getSpec().getSelector()).inform(podWake);
                }
                List<Pod> current = pods == null ? List.of() : pods.getStore().list();
                Optional<Pod> ready = current.stream().filter(PodHealth::isReady).findFirst();
                if (ready.isPresent() || (d != null && readyReplicas(d) > 0)) {
                    String which = ready.map(p -> "pod " + p.getMetadata().getName()).orElse("a replica");
                    log.log(Level.INFO, "Kubernetes reports " + which + " of " + deploymentName + " ready after "
                            + human(Duration.between(started, clock.instant())));
                    return;
                }
                for (Pod update; (update = podUpdates.poll()) != null; ) problems.observe(update);
                for (Pod pod : current) problems.observe(pod);
                if (events != null) {
                    Set<String> names = new HashSet<>();
                    for (Pod pod : current) names.add(pod.getMetadata().getName());
                    List<Event> seen = new ArrayList<>(events.getStore().list());
                    seen.sort(Comparator.comparing(e -> String.valueOf(e.getLastTimestamp())));
                    for (var e : seen) podEvents.observe(e, names);
                }
                if (d != null) deploymentFailure(d).ifPresent(reason -> fail(log, reason));
                Duration left = Duration.between(clock.instant(), deadline);
                if (left.isNegative() || left.isZero()) {
                    fail(log, deploymentName + " did not become ready within " + human(timeout) + " ("
                            + (d == null ? "the Deployment does not exist" : PodProblems.describe(current)) + ")");
                }
                long wait = Math.min(left.toMillis(), recheck.toMillis());
                if (changed.tryAcquire(Math.max(1, wait), TimeUnit.MILLISECONDS)) changed.drainPermits();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StartFailedException("interrupted while waiting for " + deploymentName + " to become ready", e);
        } catch (KubernetesClientException e) {
            String message = "the Kubernetes API refused to show " + deploymentName + " and its pods: " + PodLogs.message(e);
            log.log(Level.ERROR, message);
            throw new StartFailedException(message, e);
        } finally {
            if (events != null) events.close();
            if (pods != null) pods.close();
            if (deployments != null) deployments.close();
        }
    }

    /**
     * The namespace's Events, read while the start is awaited. Refused (no RBAC on events): one warning, and the
     * wait goes on without them.
     */
    private static SharedIndexInformer<Event> events(KubernetesClient client, String namespace,
                                                                                   ResourceEventHandler<Object> wake, LogSink log) {
        try {
            return client.v1().events().inNamespace(namespace).inform(wake);
        } catch (KubernetesClientException e) {
            log.log(Level.WARNING, "Kubernetes Events cannot be read (" + PodLogs.message(e) + "): a failure only they show, "
                    + "such as a volume that cannot be mounted, ends the deploy at its timeout");
            return null;
        }
    }

    /**
     * The one-line reason the deploy should fail for, if {@code pod} is in a state that will not fix itself:
     * it cannot be scheduled, its image cannot be pulled, its container cannot be created, or it has crashed
     * {@link #MAX_RESTARTS} times, or was killed for running out of memory. For an image pull that is still being retried ({@code ErrImagePull},
     * {@code ImagePullBackOff}) it also gives the reason; {@link #awaitReady} waits for {@link #PULL_FAILURES}
     * failed pulls before it acts on it.
     */
    public static Optional<String> failureReason(Pod pod) {
        return PodProblems.failure(pod).map(PodProblems.Failure::reason);
    }

    static boolean isReady(Pod pod) {
        if (pod.getMetadata() != null && pod.getMetadata().getDeletionTimestamp() != null) return false;
        if (pod.getStatus() == null || pod.getStatus().getConditions() == null) return false;
        for (PodCondition c : pod.getStatus().getConditions()) {
            if ("Ready".equals(c.getType()) && "True".equals(c.getStatus())) return true;
        }
        return false;
    }

    private static int readyReplicas(Deployment d) {
        Integer n = d.getStatus() == null ? null : d.getStatus().getReadyReplicas();
        return n == null ? 0 : n;
    }

    /** A Deployment that cannot create its pods (quota, admission) or has given up progressing. */
    static Optional<String> deploymentFailure(Deployment d) {
        if (d.getStatus() == null || d.getStatus().getConditions() == null) return Optional.empty();
        String name = d.getMetadata().getName();
        for (DeploymentCondition c : d.getStatus().getConditions()) {
            if ("ReplicaFailure".equals(c.getType()) && "True".equals(c.getStatus())) {
                return Optional.of("Kubernetes could not create the pods of " + name + ": " + PodProblems.oneLine(c.getMessage()));
            }
            if ("Progressing".equals(c.getType()) && "False".equals(c.getStatus())
                    && "ProgressDeadlineExceeded".equals(c.getReason())) {
                return Optional.of(name + " did not make progress within its progress deadline: " + PodProblems.oneLine(c.getMessage()));
            }
        }
        return Optional.empty();
    }

    private static void fail(LogSink log, String reason) {
        log.log(Level.ERROR, reason);
        throw new StartFailedException(reason);
    }

    static String human(Duration d) {
        long ms = d.toMillis();
        if (ms < 1000) return ms + " ms";
        if (ms < 60_000) return String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
        return (ms / 60_000) + " min " + (ms % 60_000) / 1000 + " s";
    }
}
