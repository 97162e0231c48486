package dev.slipway.kubernetes;

import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;
import dev.slipway.runtime.StartFailedException;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.ObjectReference;

import java.util.HashSet;
import java.util.Set;

/**
 * The Warning Events the kubelet, the scheduler and the ReplicaSet controller write about an app's pods, as
 * deployment log lines, next to what {@link PodProblems} reads from the pods' statuses. Some failures show only
 * here: a volume that cannot be mounted leaves the pod in ContainerCreating with nothing in its status, and a pod
 * that admission refuses never exists. Messages are cleaned and cut as {@link PodProblems#oneLine} does.
 */
final class PodEvents {
    /** A volume that failed to mount this many times (the kubelet retries about every 2 min) fails the deploy. */
    static final int MOUNT_FAILURES = 3;
    /** At most this many event lines per start: a flapping probe must not fill the log. */
    static final int MAX_LINES = 30;

    private final LogSink log;
    private final String deploymentName;
    private final Set<String> said = new HashSet<>();

    PodEvents(LogSink log, String deploymentName) {
        this.log = log;
        this.deploymentName = deploymentName;
    }

    /**
     * Logs a Warning event about one of {@code pods} (or a ReplicaSet of the Deployment) once per reason and
     * message; throws when it names a failure that will not fix itself.
     */
    void observe(Event e, Set<String> pods) {
        if (!"Warning".equals(e.getType())) return;
        ObjectReference o = e.getInvolvedObject();
        if (o == null || o.getName() == null) return;
        boolean pod = "Pod".equals(o.getKind()) && pods.contains(o.getName());
        boolean replicaSet = "ReplicaSet".equals(o.getKind()) && o.getName().startsWith(deploymentName + "-");
        if (!pod && !replicaSet) return;
        String reason = e.getReason() == null ? "Unknown" : PodProblems.oneLine(e.getReason());
        String message = PodProblems.oneLine(e.getMessage());
        String what = (pod ? "pod " : "ReplicaSet ") + o.getName();
        if (said.size() < MAX_LINES && said.add(o.getUid() + "|" + o.getName() + "|" + reason + "|" + message)) {
            log.log(Level.WARNING, "Kubernetes event on " + what + ": " + reason + ": " + message);
        }
        int count = count(e);
        String failure = switch (reason) {
            case "FailedMount", "FailedAttachVolume" -> count >= MOUNT_FAILURES
                    ? "Pod " + o.getName() + " cannot start: its volumes could not be mounted (" + reason + ", " + count
                    + " times): " + message : null;
            case "FailedCreate" -> replicaSet ? "Kubernetes could not create the pods of " + deploymentName + ": " + message : null;
            default -> null;
        };
        if (failure != null) {
            log.log(Level.ERROR, failure);
            throw new StartFailedException(failure);
        }
    }

    /** How many times it happened: the core API's count, or the events.k8s.io series' for a recurring one. */
    static int count(Event e) {
        int n = e.getCount() == null ? 1 : e.getCount();
        if (e.getSeries() != null && e.getSeries().getCount() != null) n = Math.max(n, e.getSeries().getCount());
        return n;
    }
}
