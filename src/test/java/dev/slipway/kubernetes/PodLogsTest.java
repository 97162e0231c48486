package dev.slipway.kubernetes;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.slipway.logs.Level;
import dev.slipway.runtime.OutputPump;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link PodLogs#follow} against fabric8's mock API server in CRUD mode for the pods, and a real HTTP server on
 * loopback for their {@code /log} endpoints (the mock's CRUD mode serves no logs, and its canned answers end;
 * a followed log does not). The test plays the kubelet: it starts, restarts and adds pods, and writes their
 * output in chunks of its choosing.
 */
@EnableKubernetesMockClient(crud = true, https = false)
class PodLogsTest {
    static final String NS = "slipway-apps";
    static final String SELECTOR = "slipway.dev/deployment=dep_01";
    static final String SECRET = "sk-live-0123456789abcdef";

    KubernetesMockServer server;
    KubernetesClient client;
    HttpServer kubelet;
    final Map<String, BlockingQueue<byte[]>> output = new ConcurrentHashMap<>();
    final List<String> requests = new CopyOnWriteArrayList<>();
    final List<String> disconnects = new CopyOnWriteArrayList<>();
    final List<String> log = new CopyOnWriteArrayList<>();
    static final byte[] END = new byte[0];
    /** Threads an earlier test's follow left ending (its close waits a few seconds at most); not this test's. */
    Set<Thread> earlierThreads;

    @BeforeEach
    void kubeletServesLogs() throws IOException {
        earlierThreads = Set.copyOf(podLogThreads());
        kubelet = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        kubelet.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        kubelet.createContext("/", this::serveLog);
        kubelet.start();
        int port = kubelet.getAddress().getPort();
        // the API server's /log requests go to the test's kubelet, everything else to the CRUD mock
        Interceptor toKubelet = new Interceptor() {
            @Override
            public void before(BasicBuilder builder,
                               HttpRequest request, RequestTags tags) {
                URI uri = request.uri();
                if (uri.getPath().endsWith("/log")) {
                    builder.uri(URI.create("http://127.0.0.1:" + port + uri.getRawPath() + "?" + uri.getRawQuery()));
                }
            }
        };
        client = server.createClient(b -> b.withHttpClientBuilderConsumer(h -> h.addOrReplaceInterceptor("kubelet-logs", toKubelet)));
    }

    @AfterEach
    void stop() {
        output.values().forEach(q -> q.add(END));
        kubelet.stop(0);
        client.close();
    }

    @Test
    void kubeletWritesARunningPodsOutputInChunks_linesArriveWholeAndSecretsMasked() throws Exception {
        startPod("web-1", "c1");
        try (AutoCloseable follow = PodLogs.follow(client, NS, SELECTOR, this::record, Set.of(SECRET))) {
            awaitRequests(1);
            write("web-1", "listening on :8080\nGET / 2");
            write("web-1", "00\nDATABASE_URL token=" + SECRET.substring(0, 10));
            write("web-1", SECRET.substring(10) + " ok\nbase64 " + Base64.getEncoder()
                    .encodeToString(SECRET.getBytes(StandardCharsets.UTF_8)) + "\nsplit over two lines " + SECRET.substring(0, 8) + "\n");
            write("web-1", SECRET.substring(8) + " was the key\n");
            awaitLines(6);
            assertThat(log).containsExactly("INFO listening on :8080", "INFO GET / 200", "INFO DATABASE_URL token=**** ok",
                    "INFO base64 ****", "INFO split over two lines ****", "INFO **** was the key");
        }
        assertThat(requests).containsExactly("web-1 pretty=false&container=app&follow=true");
    }

    @Test
    void kubeletStreamsHostileOutput_escapesCrAndAOneMegabyteLineAreHandledAsTheLocalRuntimeDoes() throws Exception {
        startPod("web-1", "c1");
        try (AutoCloseable follow = PodLogs.follow(client, NS, SELECTOR, this::record, Set.of(SECRET))) {
            awaitRequests(1);
            write("web-1", "\u001b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\u0007copied\n\u001b[31mred\u001b[0m\rover\r\n");
            // 1 MiB without a line end, the secret straddling the first 16 KiB cut, sent in 64 KiB chunks
            StringBuilder huge = new StringBuilder("x".repeat(OutputPump.MAX_LINE - 5)).append(SECRET);
            while (huge.length() < 1024 * 1024) huge.append('y');
            byte[] bytes = (huge + "\nafter\n").getBytes(StandardCharsets.UTF_8);
            for (int i = 0; i < bytes.length; i += 65536) {
                output("web-1").add(Arrays.copyOfRange(bytes, i, Math.min(bytes.length, i + 65536)));
            }
            awaitCondition(() -> log.contains("INFO after"));
            assertThat(log.get(0)).isEqualTo("INFO copied");
            assertThat(log.get(1)).isEqualTo("INFO red\\x0dover");
            List<String> pieces = log.subList(2, log.size() - 1).stream().map(l -> l.substring("INFO ".length())).toList();
            assertThat(pieces).allSatisfy(p -> assertThat(p.length()).isLessThanOrEqualTo(OutputPump.MAX_LINE));
            assertThat(pieces.size()).isBetween(64, 66);
            assertThat(String.join("", pieces)).doesNotContain(SECRET.substring(0, 8))
                    .isEqualTo(huge.toString().replace(SECRET, "****"));
        }
    }

    @Test
    void kubeletStartsASecondPodLater_itsLogIsFollowedToo() throws Exception {
        startPod("web-1", "c1");
        try (AutoCloseable follow = PodLogs.follow(client, NS, SELECTOR, this::record, Set.of())) {
            awaitRequests(1);
            write("web-1", "one\n");
            awaitLines(1);
            startPod("web-2", "c2"); // a scale-up, or the replacement of an evicted pod
            awaitRequests(2);
            write("web-2", "two\n");
            awaitLines(2);
            createPod("other", Map.of("slipway.dev/deployment", "dep_02"), running("c9", 0, null)); // another deployment's
            startPod("web-3", "c3"); // seen after the other deployment's pod: once it is followed, that one was passed over
            awaitRequests(3);
        }
        assertThat(log).containsExactly("INFO one", "INFO two");
        assertThat(requests).containsExactly("web-1 pretty=false&container=app&follow=true", "web-2 pretty=false&container=app&follow=true",
                "web-3 pretty=false&container=app&follow=true");
    }

    @Test
    void kubeletRestartsTheContainer_theNewInstanceIsFollowedWithoutRepeatingTheOld() throws Exception {
        startPod("web-1", "c1");
        try (AutoCloseable follow = PodLogs.follow(client, NS, SELECTOR, this::record, Set.of())) {
            awaitRequests(1);
            write("web-1", "first run\n");
            output("web-1").add(END); // the container exits: the kubelet ends the followed log
            setStatus("web-1", running("c2", 1, "c1"));
            awaitRequests(2);
            write("web-1", "second run\n");
            awaitLines(2);
            setStatus("web-1", new ContainerStatusBuilder(running("c2", 1, "c1")).withReady(true).build()); // no new instance
            startPod("web-2", "c5"); // seen after the status change: once it is followed, that change was passed over
            awaitRequests(3);
        }
        assertThat(log).containsExactly("INFO first run", "INFO second run");
        assertThat(requests).containsExactly("web-1 pretty=false&container=app&follow=true", "web-1 pretty=false&container=app&follow=true",
                "web-2 pretty=false&container=app&follow=true");
    }

    @Test
    void followStartsAfterTheKubeletRestartedTheContainer_thePreviousInstancesLogComesFirst() throws Exception {
        createPod("web-1", Map.of(), running("c2", 1, "c1"));
        output("web-1?previous").add("crashed run\n".getBytes(StandardCharsets.UTF_8));
        output("web-1?previous").add(END);
        try (AutoCloseable follow = PodLogs.follow(client, NS, SELECTOR, this::record, Set.of())) {
            awaitRequests(2);
            write("web-1", "current run\n");
            awaitLines(2);
        }
        assertThat(log).containsExactly("INFO crashed run", "INFO current run");
        assertThat(requests).containsExactly("web-1 pretty=false&container=app&previous=true", "web-1 pretty=false&container=app&follow=true");
    }

    @Test
    void close_stopsEveryStreamAndThread_andNoLaterPodIsFollowed() throws Exception {
        startPod("web-1", "c1");
        startPod("web-2", "c2");
        AutoCloseable follow = PodLogs.follow(client, NS, SELECTOR, this::record, Set.of());
        awaitRequests(2);
        write("web-1", "a\n");
        write("web-2", "b\n");
        awaitLines(2);
        assertThat(podLogThreads()).hasSize(2);

        long start = System.nanoTime();
        follow.close();
        long closeMs = (System.nanoTime() - start) / 1_000_000;
        System.out.println("PodLogs.close() with 2 open streams took " + closeMs + " ms");
        assertThat(podLogThreads()).isEmpty();

        startPod("web-3", "c3");
        // the kubelet's writes find the connection gone (a connection left open would take them until its buffers fill)
        awaitCondition(() -> {
            write("web-1", "after close " + "z".repeat(8192) + "\n");
            write("web-2", "after close " + "z".repeat(8192) + "\n");
            return disconnects.containsAll(List.of("web-1", "web-2"));
        });
        // no thread is left to follow anything (asserted above), so web-3 can have been asked for by nobody
        assertThat(requests).hasSize(2);
        assertThat(log).containsExactlyInAnyOrder("INFO a", "INFO b");
        follow.close(); // twice is fine
    }

    @Test
    void apiServerRefusesToListPods_aWarningAndNothingElse() throws Exception {
        server.expect().get().withPath("/api/v1/namespaces/" + NS + "/pods?labelSelector=slipway.dev%2Fdeployment%3Ddep_01&resourceVersion=0")
                .andReturn(403, new StatusBuilder().withCode(403).withReason("Forbidden")
                        .withMessage("pods is forbidden: cannot list resource \"pods\"").build()).always();
        AutoCloseable follow = PodLogs.follow(client, NS, SELECTOR, this::record, Set.of());
        assertThat(log).containsExactly("WARNING Could not follow the logs of the app's pods: pods is forbidden: cannot list resource \"pods\"");
        assertThat(podLogThreads()).isEmpty();
        follow.close();
    }

    // --- the kubelet's side ---

    private void serveLog(HttpExchange ex) throws IOException {
        String path = ex.getRequestURI().getPath(); // /api/v1/namespaces/<ns>/pods/<pod>/log
        String[] parts = path.split("/");
        String pod = parts[parts.length - 2];
        String query = ex.getRequestURI().getQuery();
        requests.add(pod + " " + query);
        BlockingQueue<byte[]> out = output(query.contains("previous=true") ? pod + "?previous" : pod);
        ex.getResponseHeaders().add("Content-Type", "text/plain");
        ex.sendResponseHeaders(200, 0);
        try (OutputStream body = ex.getResponseBody()) {
            while (true) {
                byte[] chunk = out.take();
                if (chunk == END) break;
                body.write(chunk);
                body.flush();
            }
        } catch (IOException e) {
            disconnects.add(pod);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private BlockingQueue<byte[]> output(String key) {
        return output.computeIfAbsent(key, k -> new LinkedBlockingQueue<>());
    }

    private void write(String pod, String text) {
        output(pod).add(text.getBytes(StandardCharsets.UTF_8));
    }

    private void startPod(String name, String containerId) {
        createPod(name, Map.of(), running(containerId, 0, null));
    }

    private void createPod(String name, Map<String, String> labels, ContainerStatus status) {
        Map<String, String> all = new HashMap<>(Map.of("app.kubernetes.io/managed-by", "slipway",
                "slipway.dev/deployment", "dep_01"));
        all.putAll(labels);
        client.pods().inNamespace(NS).resource(new PodBuilder().withNewMetadata().withName(name).withLabels(all).endMetadata()
                .withNewSpec().addNewContainer().withName("app").withImage("img").endContainer().endSpec().build())
                .createOr(NonDeletingOperation::update);
        setStatus(name, status);
    }

    private void setStatus(String pod, ContainerStatus status) {
        client.pods().inNamespace(NS).withName(pod).editStatus(p -> {
            p.setStatus(new PodStatusBuilder().withPhase("Running").withContainerStatuses(status).build());
            return p;
        });
    }

    private static ContainerStatus running(String containerId, int restarts, String previousId) {
        ContainerStatusBuilder b = new ContainerStatusBuilder().withName("app").withImage("img").withRestartCount(restarts)
                .withContainerID("containerd://" + containerId).withNewState().withNewRunning().endRunning().endState();
        if (previousId != null) {
            b.withNewLastState().withNewTerminated().withExitCode(1).withReason("Error")
                    .withContainerID("containerd://" + previousId).endTerminated().endLastState();
        }
        return b.build();
    }

    private void record(Level level, String message) {
        log.add(level.name() + " " + message);
    }

    /** This test's live pod-log threads. */
    private List<Thread> podLogThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith(PodLogs.THREAD_PREFIX) && t.isAlive())
                .filter(t -> earlierThreads == null || !earlierThreads.contains(t)).toList();
    }

    private void awaitRequests(int n) throws InterruptedException {
        awaitCondition(() -> requests.size() >= n);
    }

    private void awaitLines(int n) throws InterruptedException {
        awaitCondition(() -> log.size() >= n);
    }

    private static void awaitCondition(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("timed out");
            Thread.sleep(10);
        }
    }
}
