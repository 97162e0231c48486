package dev.slipway.kubernetes;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.metrics.v1beta1.PodMetrics;
import io.fabric8.kubernetes.api.model.metrics.v1beta1.PodMetricsBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Plays, against fabric8's mock API server (which stores objects and runs no controllers), the parts of a
 * cluster the tests need, for real on loopback:
 * <ul>
 *   <li>the kubelet: a Deployment scaled above zero gets a real HTTP server on a loopback port standing in
 *       for its pod (it answers {@code app <deployment id>}), a Pod object marked Ready and
 *       {@code status.readyReplicas}; scaled to zero, the server stops and the Pod goes. A deployment named
 *       in {@link #neverReady} gets no ready pod;</li>
 *   <li>metrics-server: each such pod has a {@code metrics.k8s.io} PodMetrics of {@link #POD_CPU} and {@link #POD_MEMORY};</li>
 *   <li>kube-proxy: each Slipway Service gets a TCP forwarder on a loopback port and {@code clusterIP
 *       127.0.0.2} with that port written into it; each connection reads the Service's selector from the
 *       API and goes to the pod of the deployment it selects (refused when none runs: no endpoints).</li>
 * </ul>
 * It polls the API every 50 ms.
 */
final class ClusterPlayer implements AutoCloseable {
    /**
     * The Services' "cluster IP": a loopback address that is not 127.0.0.1, so that the router treats it as
     * the network address it stands for (no pooled connections), as it would a real cluster IP.
     */
    static final String CLUSTER_IP = "127.0.0.2";
    /** What metrics-server says each pod uses. */
    static final String POD_CPU = "100m", POD_MEMORY = "48Mi";
    private final KubernetesClient client;
    private final Map<String, HttpServer> pods = new ConcurrentHashMap<>();
    private final Map<String, ServerSocket> proxies = new ConcurrentHashMap<>();
    final Set<String> neverReady = ConcurrentHashMap.newKeySet();
    private volatile boolean running = true;
    private final Thread loop;

    ClusterPlayer(KubernetesClient client) {
        this.client = client;
        this.loop = Thread.ofPlatform().daemon().name("cluster-player").start(this::run);
    }

    private void run() {
        while (running) {
            try {
                for (Deployment d : client.apps().deployments().inAnyNamespace().withLabel(Names.MANAGED_BY, Names.SLIPWAY).list().getItems()) {
                    kubelet(d);
                }
                for (Service s : client.services().inAnyNamespace().withLabel(Names.MANAGED_BY, Names.SLIPWAY).list().getItems()) {
                    kubeProxy(s);
                }
                for (String key : pods.keySet()) {
                    String[] nsName = key.split("/", 2);
                    if (client.apps().deployments().inNamespace(nsName[0]).withName(nsName[1]).get() == null) stopPod(key, nsName[0], nsName[1]);
                }
                Thread.sleep(50);
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                if (!running) return;
            }
        }
    }

    private void kubelet(Deployment d) {
        String ns = d.getMetadata().getNamespace();
        String name = d.getMetadata().getName();
        String key = ns + "/" + name;
        String id = d.getMetadata().getLabels().get(Names.DEPLOYMENT);
        int want = d.getSpec().getReplicas() == null ? 1 : d.getSpec().getReplicas();
        if (want > 0 && !pods.containsKey(key) && !neverReady.contains(id)) {
            pods.put(key, serve(id));
            client.pods().inNamespace(ns).resource(new PodBuilder()
                    .withNewMetadata().withName(name + "-pod").withNamespace(ns).withLabels(d.getSpec().getTemplate().getMetadata().getLabels()).endMetadata()
                    .withNewStatus().withPhase("Running").addNewCondition().withType("Ready").withStatus("True").endCondition().endStatus()
                    .build()).createOr(op -> op.update());
            // metrics-server's reading of the pod
            client.resource(new PodMetricsBuilder().withNewMetadata().withName(name + "-pod").withNamespace(ns)
                    .withLabels(d.getSpec().getTemplate().getMetadata().getLabels()).endMetadata()
                    .addNewContainer().withName("app").withUsage(Map.of("cpu", new Quantity(POD_CPU), "memory", new Quantity(POD_MEMORY)))
                    .endContainer().build()).createOr(op -> op.update());
            setReady(ns, name, 1);
        } else if (want == 0 && pods.containsKey(key)) {
            stopPod(key, ns, name);
        }
    }

    private void stopPod(String key, String ns, String name) {
        // not ready first, as a kubelet reports a terminating pod: a waiter must not see a stale ready replica
        if (client.apps().deployments().inNamespace(ns).withName(name).get() != null) setReady(ns, name, 0);
        client.pods().inNamespace(ns).withName(name + "-pod").delete();
        client.resources(PodMetrics.class).inNamespace(ns).withName(name + "-pod").delete();
        HttpServer s = pods.remove(key);
        if (s != null) s.stop(0);
    }

    private void setReady(String ns, String name, int ready) {
        client.apps().deployments().inNamespace(ns).withName(name).editStatus(d -> new DeploymentBuilder(d)
                .withStatus(new DeploymentStatusBuilder().withReplicas(ready).withReadyReplicas(ready).withAvailableReplicas(ready).build())
                .build());
    }

    private static HttpServer serve(String deploymentId) {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            server.createContext("/", exchange -> {
                byte[] body = ("app " + deploymentId).getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(200, body.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            });
            server.start();
            return server;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private void kubeProxy(Service s) {
        String ns = s.getMetadata().getNamespace();
        String name = s.getMetadata().getName();
        String key = ns + "/" + name;
        if (proxies.containsKey(key)) return;
        ServerSocket socket;
        try {
            socket = new ServerSocket(0, 50, InetAddress.getByName(CLUSTER_IP));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        proxies.put(key, socket);
        Thread.ofVirtual().start(() -> accept(socket, ns, name));
        client.services().inNamespace(ns).withName(name).edit(x -> new ServiceBuilder(x).editSpec().withClusterIP(CLUSTER_IP)
                .editFirstPort().withPort(socket.getLocalPort()).endPort().endSpec().build());
    }

    private void accept(ServerSocket socket, String ns, String serviceName) {
        while (!socket.isClosed()) {
            Socket in;
            try {
                in = socket.accept();
            } catch (IOException e) {
                return;
            }
            Thread.ofVirtual().start(() -> forward(in, ns, serviceName));
        }
    }

    /** One connection: to the pod the Service selects now, as kube-proxy's rules would after the selector moved. */
    private void forward(Socket in, String ns, String serviceName) {
        try (in) {
            Service s = client.services().inNamespace(ns).withName(serviceName).get();
            String id = s == null ? null : s.getSpec().getSelector().get(Names.DEPLOYMENT);
            HttpServer pod = id == null ? null : pods.get(ns + "/" + Names.deployment(id));
            if (pod == null) return; // no endpoints: the connection is closed
            try (Socket out = new Socket(InetAddress.getLoopbackAddress(), pod.getAddress().getPort())) {
                Thread back = Thread.ofVirtual().start(() -> pipe(out, in));
                pipe(in, out);
                back.join();
            }
        } catch (IOException | InterruptedException | RuntimeException e) {
            // the connection ends
        }
    }

    private static void pipe(Socket from, Socket to) {
        try {
            InputStream i = from.getInputStream();
            OutputStream o = to.getOutputStream();
            i.transferTo(o);
            to.shutdownOutput();
        } catch (IOException e) {
            // closed
        }
    }

    int podCount() {
        return pods.size();
    }

    @Override
    public void close() throws Exception {
        running = false;
        loop.interrupt();
        loop.join(2000);
        for (HttpServer s : pods.values()) s.stop(0);
        for (ServerSocket s : proxies.values()) s.close();
    }
}
