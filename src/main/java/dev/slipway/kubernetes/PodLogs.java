package dev.slipway.kubernetes;

import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;
import dev.slipway.logs.Masker;
import dev.slipway.runtime.OutputPump;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.ContainerResource;
import io.fabric8.kubernetes.client.dsl.LogWatch;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The container logs of an app's pods, followed into its deployment log: every pod the selector selects,
 * also those created later (a scale-up, a replaced pod), and each container again after the kubelet
 * restarts it. Lines go through the local runtime's {@link OutputPump}: split at line ends, capped at
 * {@link OutputPump#MAX_LINE}, cleaned of control sequences, secrets masked (also across two lines).
 * <p>
 * One informer watches the pods; each container instance (a container id) is streamed once, on a thread
 * named {@code pod-log-<pod>} that ends when the container's log ends or {@link #close} is called.
 * A container whose earlier instance was never seen (the follow started after a restart) has that
 * instance's log read first ({@code previous=true}).
 */
public final class PodLogs implements AutoCloseable {
    static final String THREAD_PREFIX = "pod-log-";
    private static final Duration STOP_WAIT = Duration.ofSeconds(5);

    private final KubernetesClient client;
    private final String namespace;
    private final LogSink log;
    private final Masker mask;
    private final Set<String> streamed = ConcurrentHashMap.newKeySet();
    private final Map<Thread, Closeable> running = new ConcurrentHashMap<>();
    private volatile boolean closed;
    private SharedIndexInformer<Pod> informer;

    private PodLogs(KubernetesClient client, String namespace, LogSink log, Masker mask) {
        this.client = client;
        this.namespace = namespace;
        this.log = log;
        this.mask = mask;
    }

    public static AutoCloseable follow(KubernetesClient client, String namespace, String labelSelector, LogSink log,
                                       Set<String> secretValues) {
        PodLogs logs = new PodLogs(client, namespace, log, new Masker(secretValues));
        try {
            logs.informer = client.pods().inNamespace(namespace).withLabelSelector(labelSelector).inform(new ResourceEventHandler<>() {
                @Override public void onAdd(Pod pod) { logs.seen(pod); }
                @Override public void onUpdate(Pod old, Pod pod) { logs.seen(pod); }
                @Override public void onDelete(Pod pod, boolean unknownFinalState) { }
            });
        } catch (KubernetesClientException e) {
            // the app runs without its log in the deployment log: a deploy does not fail for want of it
            log.log(Level.WARNING, "Could not follow the logs of the app's pods: " + message(e));
            logs.close();
        }
        return logs;
    }

    /** Stops the informer and every stream, and waits (a few seconds at most) for their threads to end. */
    @Override
    public void close() {
        List<Thread> threads;
        synchronized (this) {
            if (closed) return;
            closed = true;
            threads = new ArrayList<>(running.keySet());
        }
        if (informer != null) informer.close();
        for (Thread t : threads) {
            closeQuietly(running.get(t));
            t.interrupt();
        }
        long deadline = System.nanoTime() + STOP_WAIT.toNanos();
        for (Thread t : threads) {
            try {
                t.join(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void seen(Pod pod) {
        if (pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null) return;
        String podName = pod.getMetadata().getName();
        String uid = pod.getMetadata().getUid() == null ? podName : pod.getMetadata().getUid();
        for (ContainerStatus cs : pod.getStatus().getContainerStatuses()) {
            String current = containerId(cs);
            String earlier = cs.getLastState() == null || cs.getLastState().getTerminated() == null
                    ? null : cs.getLastState().getTerminated().getContainerID();
            boolean readEarlier = earlier != null && !earlier.equals(current) && streamed.add(uid + "|" + earlier);
            boolean followCurrent = current != null && streamed.add(uid + "|" + current);
            if (readEarlier || followCurrent) start(podName, cs.getName(), readEarlier, followCurrent);
        }
    }

    private static String containerId(ContainerStatus cs) {
        if (cs.getState() == null) return null;
        if (cs.getState().getRunning() != null) return cs.getContainerID();
        if (cs.getState().getTerminated() != null) {
            String id = cs.getState().getTerminated().getContainerID();
            return id != null ? id : cs.getContainerID();
        }
        return null;
    }

    private synchronized void start(String pod, String container, boolean readEarlier, boolean followCurrent) {
        if (closed) return;
        Thread t = Thread.ofPlatform().daemon().name(THREAD_PREFIX + pod).unstarted(() -> {
            try {
                if (readEarlier) stream(pod, container, true);
                if (followCurrent && !closed) stream(pod, container, false);
            } finally {
                running.remove(Thread.currentThread());
            }
        });
        running.put(t, () -> { });
        t.start();
    }

    /** One container instance's log into the deployment log, on the calling thread. */
    private void stream(String pod, String container, boolean previous) {
        Thread self = Thread.currentThread();
        try {
            // readiness is the informer's business: no waiting for the pod here (fabric8 waits 5 s by default)
            ContainerResource c = client.pods().inNamespace(namespace).withName(pod).inContainer(container).withReadyWaitTimeout(0);
            Closeable handle;
            InputStream in;
            if (previous) {
                in = c.terminated().getLogInputStream();
                handle = in;
            } else {
                LogWatch watch = c.watchLog();
                in = watch.getOutput();
                handle = watch;
            }
            synchronized (this) {
                if (closed) {
                    closeQuietly(handle);
                    return;
                }
                running.put(self, handle);
            }
            try {
                OutputPump.copy(in, log, mask);
            } finally {
                closeQuietly(handle);
            }
        } catch (KubernetesClientException e) {
            if (!closed) {
                log.log(Level.WARNING, "Could not read the log of pod " + pod + ": " + message(e));
            }
        }
    }

    static String message(KubernetesClientException e) {
        return PodProblems.oneLine(e.getStatus() != null && e.getStatus().getMessage() != null
                ? e.getStatus().getMessage() : e.getMessage());
    }

    private static void closeQuietly(Closeable c) {
        if (c == null) return;
        try {
            c.close();
        } catch (IOException | RuntimeException ignored) {
            // already closed or the connection is gone: the thread ends either way
        }
    }
}
