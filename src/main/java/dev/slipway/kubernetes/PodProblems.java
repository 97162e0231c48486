package dev.slipway.kubernetes;

import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;
import dev.slipway.logs.LogText;
import dev.slipway.runtime.StartFailedException;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Quantity;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What is wrong with an app's pods, in words for its deployment log: the kubelet's and the scheduler's
 * states translated, each said once. Messages from the cluster are cleaned of control characters, put on
 * one line and shortened; a container's termination message is never shown (the app writes it, and it
 * could hold anything, secrets included).
 */
final class PodProblems {
    static final int MAX_MESSAGE = 300;

    record Failure(String reason, String container, boolean retried) {}

    private final LogSink log;
    private final Set<String> said = new HashSet<>();
    /** Failed pulls seen, by pod uid and container. */
    private final Map<String, Integer> pullFailures = new HashMap<>();
    private final Map<String, String> lastWaiting = new HashMap<>();

    PodProblems(LogSink log) {
        this.log = log;
    }

    /** Logs what is new about {@code pod}; throws when it is in a state the deploy should fail on. */
    void observe(Pod pod) {
        String name = name(pod);
        String uid = pod.getMetadata().getUid() == null ? name : pod.getMetadata().getUid();
        unschedulable(pod).ifPresent(message -> once(uid + "|unschedulable|" + message, Level.WARNING,
                "Pod " + name + " cannot be scheduled: " + message));
        if (pod.getStatus() != null && "Failed".equals(pod.getStatus().getPhase())) {
            once(uid + "|failed", Level.WARNING, "Pod " + name + " failed: " + oneLine(pod.getStatus().getReason())
                    + (pod.getStatus().getMessage() == null ? "" : ": " + oneLine(pod.getStatus().getMessage())));
        }
        for (ContainerStatus cs : statuses(pod)) {
            String key = uid + "|" + cs.getName();
            String reason = waitingReason(cs);
            String previous = lastWaiting.put(key, reason == null ? "" : reason);
            // a failed pull is ErrImagePull, then ImagePullBackOff until the next try: one failure per entry into them
            boolean newPullFailure = "ErrImagePull".equals(reason) ? !"ErrImagePull".equals(previous)
                    : "ImagePullBackOff".equals(reason) && !"ErrImagePull".equals(previous) && !"ImagePullBackOff".equals(previous);
            if (newPullFailure) {
                int n = pullFailures.merge(key, 1, Integer::sum);
                log.log(Level.WARNING, "Pulling image " + cs.getImage() + " failed (pod " + name + ", attempt " + n + "): "
                        + oneLine(cs.getState().getWaiting().getMessage()));
            }
            termination(pod, cs).ifPresent(t -> {
                String id = t.getContainerID() != null ? t.getContainerID()
                        : t.getStartedAt() + "/" + t.getFinishedAt() + "/" + t.getExitCode();
                once(key + "|terminated|" + id, Level.ERROR, "App " + ended(pod, cs, t) + " in pod " + name
                        + uptime(t) + "; Kubernetes restarts it (restart " + restartsAfter(cs) + ")");
            });
            if ("CrashLoopBackOff".equals(reason)) {
                ContainerStateTerminated last = cs.getLastState() == null ? null : cs.getLastState().getTerminated();
                once(key + "|crashloop|" + cs.getRestartCount(), Level.WARNING, "Pod " + name + " is in CrashLoopBackOff: "
                        + "the app has crashed " + restarts(cs) + " time" + (restarts(cs) == 1 ? "" : "s")
                        + (last == null ? "" : ", last " + ended(pod, cs, last))
                        + "; Kubernetes waits before restarting it (the deploy fails after " + PodHealth.MAX_RESTARTS + ")");
            }
        }
        Optional<Failure> failure = failure(pod);
        if (failure.isEmpty()) return;
        if (failure.get().retried() && pullFailures.getOrDefault(uid + "|" + failure.get().container(), 0) < PodHealth.PULL_FAILURES) {
            return; // the kubelet retries the pull: a registry that was briefly away, an image pushed late
        }
        log.log(Level.ERROR, failure.get().reason());
        throw new StartFailedException(failure.get().reason());
    }

    static Optional<Failure> failure(Pod pod) {
        String name = name(pod);
        Optional<String> unschedulable = unschedulable(pod);
        if (unschedulable.isPresent()) {
            return Optional.of(new Failure("Pod " + name + " cannot be scheduled: " + unschedulable.get(), null, false));
        }
        for (ContainerStatus cs : statuses(pod)) {
            String reason = waitingReason(cs);
            String message = reason == null ? null : oneLine(cs.getState().getWaiting().getMessage());
            if (reason != null) switch (reason) {
                case "ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull" -> {
                    return Optional.of(new Failure("Image " + cs.getImage() + " could not be pulled (" + reason + "): "
                            + message, cs.getName(), reason.equals("ErrImagePull") || reason.equals("ImagePullBackOff")));
                }
                case "CreateContainerConfigError", "CreateContainerError" -> {
                    return Optional.of(new Failure("Container " + cs.getName() + " of pod " + name
                            + " could not be created (" + reason + "): " + message, cs.getName(), false));
                }
                default -> { }
            }
            Optional<ContainerStateTerminated> last = termination(pod, cs);
            if (last.isPresent() && "OOMKilled".equals(last.get().getReason())) {
                // the limit does not change by itself: as the local runtime, an out-of-memory start-up fails at once
                return Optional.of(new Failure("App " + ended(pod, cs, last.get()) + " (pod " + name + ")", cs.getName(), false));
            }
            boolean down = "CrashLoopBackOff".equals(reason) || (cs.getState() != null && cs.getState().getTerminated() != null);
            if (down && restarts(cs) >= PodHealth.MAX_RESTARTS && last.isPresent()) {
                return Optional.of(new Failure("App keeps crashing: it " + ended(pod, cs, last.get())
                        + " and was restarted " + restarts(cs) + " times (pod " + name + ")", cs.getName(), false));
            }
        }
        return Optional.empty();
    }

    /** The state of the pods in a few words, for the message of a deploy that timed out. */
    static String describe(List<Pod> pods) {
        if (pods.isEmpty()) return "no pod was created";
        List<String> parts = new ArrayList<>();
        for (Pod pod : pods.subList(0, Math.min(3, pods.size()))) {
            String state = pod.getStatus() == null || pod.getStatus().getPhase() == null ? "Pending" : pod.getStatus().getPhase();
            for (ContainerStatus cs : statuses(pod)) {
                String reason = waitingReason(cs);
                if (reason != null) state += ", " + reason;
                else if (cs.getState() != null && cs.getState().getRunning() != null && !Boolean.TRUE.equals(cs.getReady())) {
                    state += ", running but not ready";
                }
            }
            parts.add("pod " + name(pod) + ": " + state);
        }
        return String.join("; ", parts);
    }

    /** A message from the cluster as one short, printable line. */
    static String oneLine(String message) {
        if (message == null || message.isBlank()) return "no message";
        String line = LogText.clean(message.strip().replaceAll("\\s*\\R\\s*", " "));
        return line.length() <= MAX_MESSAGE ? line : line.substring(0, MAX_MESSAGE) + "…";
    }

    static String waitingReason(ContainerStatus cs) {
        return cs.getState() == null || cs.getState().getWaiting() == null ? null : cs.getState().getWaiting().getReason();
    }

    private void once(String key, Level level, String line) {
        if (said.add(key)) log.log(level, line);
    }

    private static Optional<String> unschedulable(Pod pod) {
        if (pod.getStatus() == null || pod.getStatus().getConditions() == null) return Optional.empty();
        for (PodCondition c : pod.getStatus().getConditions()) {
            if ("PodScheduled".equals(c.getType()) && "False".equals(c.getStatus()) && "Unschedulable".equals(c.getReason())) {
                return Optional.of(oneLine(c.getMessage()));
            }
        }
        return Optional.empty();
    }

    private static List<ContainerStatus> statuses(Pod pod) {
        if (pod.getStatus() == null) return List.of();
        List<ContainerStatus> all = new ArrayList<>();
        if (pod.getStatus().getInitContainerStatuses() != null) all.addAll(pod.getStatus().getInitContainerStatuses());
        if (pod.getStatus().getContainerStatuses() != null) all.addAll(pod.getStatus().getContainerStatuses());
        return all;
    }

    /** The container's latest termination: the current state if it is down, else the last one. */
    private static Optional<ContainerStateTerminated> termination(Pod pod, ContainerStatus cs) {
        if (cs.getState() != null && cs.getState().getTerminated() != null) return Optional.of(cs.getState().getTerminated());
        if (cs.getLastState() != null && cs.getLastState().getTerminated() != null) return Optional.of(cs.getLastState().getTerminated());
        return Optional.empty();
    }

    /** "was killed: Out of memory (limit 256Mi)" or "exited with code 1 (Error)". */
    private static String ended(Pod pod, ContainerStatus cs, ContainerStateTerminated t) {
        if ("OOMKilled".equals(t.getReason())) return "was killed: Out of memory (limit " + memoryLimit(pod, cs.getName()) + ")";
        int code = t.getExitCode() == null ? -1 : t.getExitCode();
        String signal = code > 128 && code < 160 ? ", signal " + (code - 128) : "";
        return "exited with code " + code + " (" + (t.getReason() == null ? "no reason given" : oneLine(t.getReason())) + signal + ")";
    }

    private static String memoryLimit(Pod pod, String container) {
        if (pod.getSpec() == null || pod.getSpec().getContainers() == null) return "unknown";
        for (Container c : pod.getSpec().getContainers()) {
            if (!container.equals(c.getName()) || c.getResources() == null || c.getResources().getLimits() == null) continue;
            Quantity q = c.getResources().getLimits().get("memory");
            if (q != null) return q.toString();
        }
        return "none set";
    }

    private static String uptime(ContainerStateTerminated t) {
        try {
            if (t.getStartedAt() == null || t.getFinishedAt() == null) return "";
            Duration up = Duration.between(Instant.parse(t.getStartedAt()), Instant.parse(t.getFinishedAt()));
            return up.isNegative() ? "" : " after " + PodHealth.human(up);
        } catch (DateTimeParseException e) {
            return "";
        }
    }

    private static int restarts(ContainerStatus cs) {
        return cs.getRestartCount() == null ? 0 : cs.getRestartCount();
    }

    /** The restart that follows a termination: the count has not moved yet while the container is still down. */
    private static int restartsAfter(ContainerStatus cs) {
        return cs.getState() != null && cs.getState().getTerminated() != null ? restarts(cs) + 1 : restarts(cs);
    }

    private static String name(Pod pod) {
        return pod.getMetadata() == null || pod.getMetadata().getName() == null ? "?" : pod.getMetadata().getName();
    }
}
