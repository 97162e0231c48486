package dev.slipway.kubernetes;

import dev.slipway.build.Artifact;
import dev.slipway.net.DatabaseEndpoint;
import dev.slipway.net.EgressAllow;
import dev.slipway.testing.EndToEnd;
import dev.slipway.webhooks.RebindingNames;
import dev.slipway.runtime.AppSpec;
import dev.slipway.runtime.Instance;
import dev.slipway.runtime.InstanceType;
import dev.slipway.runtime.RuntimeSettings;
import dev.slipway.runtime.StartFailedException;
import dev.slipway.testing.Await;
import dev.slipway.testing.RecordingLog;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import dev.slipway.runtime.InstanceStore;
import dev.slipway.runtime.RetiringPool;
import dev.slipway.runtime.local.RuntimeFixture;
import dev.slipway.secrets.SecretBox;
import dev.slipway.store.Database;
import dev.slipway.store.Dialect;
import dev.slipway.testing.TestStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Kubernetes runtime against fabric8's mock API server in CRUD mode. The mock stores objects and runs
 * no controllers: {@link ClusterPlayer} plays the kubelet (pods ready, or never) and kube-proxy (a Service's
 * cluster IP is 127.0.0.2 and a port where a real forwarder follows its selector); tests that rely on it
 * say so in their names. Requests in these tests go over real loopback sockets.
 */
@EnableKubernetesMockClient(crud = true, https = false)
@EndToEnd
class KubernetesRuntimeTest {
    static KubernetesMockServer server;
    static KubernetesClient client;

    static final String IMAGE = "registry.test/slipway/prj_a@sha256:" + "ab".repeat(32);
    static final String NS = "slipway-apps";

    ClusterPlayer cluster;
    KubernetesRuntime runtime;

    @BeforeEach
    void setUp() {
        for (String ns : List.of(NS, "slipway-apps-acc-1")) {
            client.apps().deployments().inNamespace(ns).delete();
            client.services().inNamespace(ns).delete();
            client.network().v1().networkPolicies().inNamespace(ns).delete();
            client.secrets().inNamespace(ns).delete();
            client.pods().inNamespace(ns).delete();
        }
        cluster = new ClusterPlayer(client);
        runtime = runtime(KubernetesSettings.LOCAL.withEnabled(true), Duration.ofSeconds(10));
    }

    @AfterEach
    void tearDown() throws Exception {
        cluster.close();
    }

    KubernetesRuntime runtime(KubernetesSettings settings, Duration healthTimeout) {
        return runtime(settings, EgressAllow.NONE, healthTimeout);
    }

    KubernetesRuntime runtime(KubernetesSettings settings, EgressAllow allow, Duration healthTimeout) {
        RuntimeSettings options = RuntimeSettings.defaults(List.of("us-east-1")).withHealthTimeout(healthTimeout);
        // the runtime closes its client on close(): each gets its own
        return new KubernetesRuntime(server.createClient(), settings, allow, options, Clock.systemUTC(),
                artifact -> artifact.startsWith("art_noimage") ? Optional.empty() : Optional.of(IMAGE), project -> "acc_1",
                deployment -> false);
    }

    static AppSpec spec(String deploymentId, String projectId, String artifactId, Map<String, String> env, InstanceType type) {
        return spec(deploymentId, projectId, artifactId, env, type, null);
    }

    /** @param database the project's database as the platform recorded it */
    static AppSpec spec(String deploymentId, String projectId, String artifactId, Map<String, String> env, InstanceType type,
                        DatabaseEndpoint database) {
        Artifact artifact = new Artifact(artifactId, projectId, "node", "abc123", Path.of("/nonexistent/" + artifactId),
                List.of("node", "server.js"), null, Instant.now());
        return new AppSpec(deploymentId, projectId, artifact, env, Set.of("s3cret-value"), type, database);
    }

    static AppSpec spec(String deploymentId) {
        return spec(deploymentId, "prj_a", "art_" + deploymentId, Map.of("GREETING", "hi"), InstanceType.STARTER);
    }

    /** A new connection each time: kube-proxy picks a pod per connection, so a kept-alive one stays on the old pod. */
    String get(Instance i) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        return http.send(HttpRequest.newBuilder(URI.create("http://" + i.host() + ":" + i.port() + "/")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    @Test
    void startWritesEveryObjectWithTheRestrictedStandardAndTheRequestReachesTheApp_kubeletAndKubeProxyPlayed() throws Exception {
        Map<String, String> env = Map.of("DATABASE_URL", "postgres://u:p@10.0.5.20:5433/app", "API_KEY", "s3cret-value",
                "PORT", "1");
        // the database the platform made on the operator's server, in the cluster: its rule comes from that record
        DatabaseEndpoint database = new DatabaseEndpoint("10.0.5.20", 5433, true);
        RecordingLog log = new RecordingLog();
        Instance i = runtime.start(spec("dep_Ab1", "prj_a", "art_1", env, InstanceType.STANDARD, database), log);

        Map<String, String> labels = Map.of("app.kubernetes.io/managed-by", "slipway", "slipway.dev/account", "acc_1",
                "slipway.dev/project", "prj_a", "slipway.dev/deployment", "dep_Ab1");
        Deployment d = client.apps().deployments().inNamespace(NS).withName("d-dep-ab1").get();
        assertThat(d.getMetadata().getLabels()).isEqualTo(labels);
        assertThat(d.getSpec().getReplicas()).isEqualTo(1);
        assertThat(d.getSpec().getSelector().getMatchLabels())
                .isEqualTo(Map.of("app.kubernetes.io/managed-by", "slipway", "slipway.dev/deployment", "dep_Ab1"));
        assertThat(d.getSpec().getTemplate().getMetadata().getLabels()).isEqualTo(labels);
        PodSpec pod = d.getSpec().getTemplate().getSpec();
        assertThat(pod.getAutomountServiceAccountToken()).isFalse();
        assertThat(pod.getEnableServiceLinks()).isFalse();
        assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(pod.getSecurityContext().getRunAsUser()).isEqualTo(65532L);
        assertThat(pod.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
        assertThat(pod.getContainers()).hasSize(1);
        Container c = pod.getContainers().getFirst();
        assertThat(c.getImage()).isEqualTo(IMAGE);
        assertThat(c.getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(c.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(c.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
        assertThat(c.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(c.getSecurityContext().getCapabilities().getAdd()).isNullOrEmpty();
        assertThat(c.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
        assertThat(c.getSecurityContext().getPrivileged()).isNull();
        // resources from the instance type table: standard is 512 MB and half a core
        assertThat(c.getResources().getLimits().get("memory").toString()).isEqualTo("512Mi");
        assertThat(c.getResources().getLimits().get("cpu").toString()).isEqualTo("500m");
        assertThat(c.getResources().getRequests().get("memory").toString()).isEqualTo("512Mi");
        assertThat(c.getResources().getRequests().get("cpu").toString()).isEqualTo("500m");
        // /tmp is the only writable place: an emptyDir of the type's scratch size
        assertThat(c.getVolumeMounts()).singleElement().satisfies(m -> {
            assertThat(m.getMountPath()).isEqualTo("/tmp");
            assertThat(m.getName()).isEqualTo("tmp");
        });
        assertThat(pod.getVolumes()).singleElement().satisfies(v -> {
            assertThat(v.getName()).isEqualTo("tmp");
            assertThat(v.getEmptyDir().getSizeLimit().toString()).isEqualTo("128Mi");
        });
        assertThat(c.getReadinessProbe().getTcpSocket().getPort().getIntVal()).isEqualTo(8080);
        assertThat(c.getEnv()).singleElement().satisfies(e -> {
            assertThat(e.getName()).isEqualTo("PORT");
            assertThat(e.getValue()).isEqualTo("8080");
        });
        assertThat(c.getEnvFrom()).singleElement().satisfies(e -> assertThat(e.getSecretRef().getName()).isEqualTo("d-dep-ab1-env"));
        assertThat(c.getPorts()).singleElement().satisfies(p -> assertThat(p.getContainerPort()).isEqualTo(8080));

        Secret secret = client.secrets().inNamespace(NS).withName("d-dep-ab1-env").get();
        assertThat(secret.getMetadata().getLabels()).isEqualTo(labels);
        Map<String, String> values = secret.getStringData() != null ? secret.getStringData() : decode(secret.getData());
        assertThat(values).isEqualTo(Map.of("DATABASE_URL", "postgres://u:p@10.0.5.20:5433/app", "API_KEY", "s3cret-value"));

        Service svc = client.services().inNamespace(NS).withName("d-dep-ab1").get();
        assertThat(svc.getMetadata().getLabels()).isEqualTo(labels);
        assertThat(svc.getSpec().getType()).isEqualTo("ClusterIP");
        assertThat(svc.getSpec().getSelector()).isEqualTo(Map.of("app.kubernetes.io/managed-by", "slipway", "slipway.dev/deployment", "dep_Ab1"));
        assertThat(svc.getSpec().getPorts()).singleElement().satisfies(p -> assertThat(p.getTargetPort().getIntVal()).isEqualTo(8080));

        NetworkPolicy np = client.network().v1().networkPolicies().inNamespace(NS).withName("d-dep-ab1").get();
        assertThat(np.getMetadata().getLabels()).isEqualTo(labels);
        assertThat(np.getSpec().getPodSelector().getMatchLabels()).isEqualTo(svc.getSpec().getSelector());
        assertThat(np.getSpec().getPolicyTypes()).containsExactlyInAnyOrder("Ingress", "Egress");
        assertThat(np.getSpec().getIngress()).singleElement().satisfies(rule -> {
            assertThat(rule.getFrom()).singleElement().satisfies(peer -> {
                assertThat(peer.getNamespaceSelector().getMatchLabels()).isEqualTo(Map.of("kubernetes.io/metadata.name", "slipway"));
                assertThat(peer.getPodSelector().getMatchLabels())
                        .isEqualTo(Map.of("app.kubernetes.io/name", "slipway", "app.kubernetes.io/component", "server"));
                assertThat(peer.getIpBlock()).isNull();
            });
            assertThat(rule.getPorts()).singleElement().satisfies(p -> assertThat(p.getPort().getIntVal()).isEqualTo(8080));
        });
        var egress = np.getSpec().getEgress();
        assertThat(egress).hasSize(3);
        assertThat(egress.get(0).getTo()).singleElement().satisfies(peer ->
                assertThat(peer.getPodSelector().getMatchLabels()).isEqualTo(Map.of("k8s-app", "kube-dns")));
        assertThat(egress.get(0).getPorts()).extracting(p -> p.getProtocol() + "/" + p.getPort().getIntVal())
                .containsExactlyInAnyOrder("UDP/53", "TCP/53");
        assertThat(egress.get(1).getTo()).singleElement().satisfies(peer -> {
            assertThat(peer.getIpBlock().getCidr()).isEqualTo("0.0.0.0/0");
            assertThat(peer.getIpBlock().getExcept()).containsExactlyElementsOf(KubernetesSettings.DEFAULT_CLUSTER_CIDRS);
        });
        assertThat(egress.get(1).getPorts()).isNullOrEmpty();
        assertThat(egress.get(2).getTo()).singleElement().satisfies(peer -> assertThat(peer.getIpBlock().getCidr()).isEqualTo("10.0.5.20/32"));
        assertThat(egress.get(2).getPorts()).singleElement().satisfies(p -> {
            assertThat(p.getProtocol()).isEqualTo("TCP");
            assertThat(p.getPort().getIntVal()).isEqualTo(5433);
        });

        // the instance is the Service's address, as the API server (here: the kube-proxy player) gave it
        Service now = client.services().inNamespace(NS).withName("d-dep-ab1").get();
        assertThat(i.host()).isEqualTo(now.getSpec().getClusterIP()).isEqualTo(ClusterPlayer.CLUSTER_IP);
        assertThat(i.port()).isEqualTo(now.getSpec().getPorts().getFirst().getPort());
        assertThat(i.pid()).isZero();
        assertThat(get(i)).isEqualTo("app dep_Ab1");
        assertThat(runtime.serves(i.port())).isTrue();
        assertThat(runtime.restarting(i.port())).isFalse();
        assertThat(runtime.isolated()).isTrue();
        assertThat(runtime.instanceType()).isEqualTo("kubernetes");
        assertThat(log.entries().toString()).contains("Starting " + IMAGE + " as slipway-apps/d-dep-ab1 (standard: 512 MB, 500 mCPU)")
                .doesNotContain("s3cret-value");
        // idempotent: the same instance, no second set of objects
        assertThat(runtime.start(spec("dep_Ab1", "prj_a", "art_1", env, InstanceType.STANDARD, database), log)).isEqualTo(i);
        assertThat(client.apps().deployments().inNamespace(NS).list().getItems()).hasSize(1);
    }

    /** The address blocks of the policy's egress rules, as {@code cidr} or {@code cidr:port}. */
    private static List<String> egressBlocks(String deploymentId) {
        NetworkPolicy np = client.network().v1().networkPolicies().inNamespace(NS).withName(Names.deployment(deploymentId)).get();
        List<String> out = new ArrayList<>();
        for (var rule : np.getSpec().getEgress()) {
            for (var peer : rule.getTo()) {
                if (peer.getIpBlock() == null) continue;
                String ports = rule.getPorts() == null ? "" : String.join(",", rule.getPorts().stream()
                        .map(p -> String.valueOf(p.getPort().getIntVal())).toList());
                out.add(peer.getIpBlock().getCidr() + (ports.isEmpty() ? "" : ":" + ports));
            }
        }
        return out;
    }

    /**
     * A tenant's own DATABASE_URL (a deployment's env_vars may set one) is only a variable of its app: it names
     * the cloud's metadata address, the API server, a kubelet or another tenant's pod, and no egress rule to it
     * appears. The rule of a database comes from the platform's record of it alone.
     */
    @Test
    void aTenantsDatabaseUrlOpensNoEgressToTheMetadataAddressNorIntoTheCluster_kubeletPlayed() {
        List<String> urls = List.of("postgres://x:y@169.254.169.254:80/latest", "postgres://x:y@10.96.0.1:443/api",
                "mysql://x:y@10.244.1.7:10250/pods", "postgresql://x@[fd00::1]:5432/db", "jdbc:postgresql://172.17.0.1:2379/etcd");
        for (int i = 0; i < urls.size(); i++) {
            String id = "dep_t" + i;
            RecordingLog log = new RecordingLog();
            runtime.start(spec(id, "prj_a", "art_" + id, Map.of("DATABASE_URL", urls.get(i), "SHADOW_DATABASE_URL", urls.get(i)),
                    InstanceType.STARTER), log);
            assertThat(egressBlocks(id)).as(urls.get(i)).containsExactly("0.0.0.0/0");
            // the variable is still the app's own: it is in its Secret as it was set
            Secret secret = client.secrets().inNamespace(NS).withName(Names.secret(id)).get();
            Map<String, String> values = secret.getStringData() != null ? secret.getStringData() : decode(secret.getData());
            assertThat(values).containsEntry("DATABASE_URL", urls.get(i));
        }
    }

    /**
     * The platform's record of a database it connected: its rule is there when its address is public; inside the
     * cluster or at a metadata, link-local or private address only when the operator allows that address
     * ({@code SLIPWAY_EGRESS_ALLOW}), and the deployment's log says why it has none. A name is resolved at deploy time.
     */
    @Test
    void aConnectedDatabaseGetsItsRuleOnlyAtAnAddressTheOperatorAllows_kubeletPlayed() throws Exception {
        String metadataName = "db-" + UUID.randomUUID().toString().substring(0, 8) + ".pinned.test";
        InetAddress metadata = InetAddress.getByName("169.254.169.254");
        RebindingNames.rebind(metadataName, metadata, metadata);
        record Case(DatabaseEndpoint db, EgressAllow allow, List<String> blocks, String warning) {}
        List<Case> cases = List.of(
                new Case(new DatabaseEndpoint("192.0.2.10", 5432, false), EgressAllow.NONE,
                        List.of("0.0.0.0/0", "192.0.2.10/32:5432"), null),
                new Case(new DatabaseEndpoint("10.0.5.20", 5432, false), EgressAllow.NONE,
                        List.of("0.0.0.0/0"), "10.0.5.20 (inside the cluster's ranges)"),
                new Case(new DatabaseEndpoint("10.0.5.20", 5432, false), EgressAllow.parse("10.0.5.20"),
                        List.of("0.0.0.0/0", "10.0.5.20/32:5432"), null),
                new Case(new DatabaseEndpoint("169.254.169.254", 80, false), EgressAllow.parse("10.0.0.0/8"),
                        List.of("0.0.0.0/0"), "169.254.169.254 (inside the cluster's ranges)"),
                new Case(new DatabaseEndpoint(metadataName, 80, false), EgressAllow.NONE,
                        List.of("0.0.0.0/0"), "169.254.169.254 (inside the cluster's ranges)"),
                new Case(new DatabaseEndpoint("fd00::7", 3306, false), EgressAllow.NONE,
                        List.of("0.0.0.0/0"), "fd00:0:0:0:0:0:0:7 (a unique-local address)"),
                new Case(new DatabaseEndpoint("fd00::7", 3306, false), EgressAllow.parse("fd00::/64"),
                        List.of("0.0.0.0/0", "fd00:0:0:0:0:0:0:7/128:3306"), null));
        for (int n = 0; n < cases.size(); n++) {
            Case c = cases.get(n);
            String id = "dep_c" + n;
            KubernetesRuntime allowing = runtime(KubernetesSettings.LOCAL.withEnabled(true), c.allow(), Duration.ofSeconds(10));
            RecordingLog log = new RecordingLog();
            try {
                allowing.start(spec(id, "prj_a", "art_" + id, Map.of(), InstanceType.STARTER, c.db()), log);
            } finally {
                allowing.close();
            }
            assertThat(egressBlocks(id)).as(c.toString()).containsExactlyElementsOf(c.blocks());
            if (c.warning() == null) {
                assertThat(log.entries().toString()).as(c.toString()).doesNotContain("No egress rule");
            } else {
                assertThat(log.entries().toString()).as(c.toString()).contains("No egress rule to the project's database at "
                        + c.db() + ": " + c.warning()).contains("SLIPWAY_EGRESS_ALLOW");
            }
        }
    }

    private static Map<String, String> decode(Map<String, String> data) {
        Map<String, String> out = new TreeMap<>();
        data.forEach((k, v) -> out.put(k, new String(Base64.getDecoder().decode(v), StandardCharsets.UTF_8)));
        return out;
    }

    @Test
    void aBuildWithoutAnImageIsRefusedWithAClearReasonAndNothingIsWritten() {
        RecordingLog log = new RecordingLog();
        assertThatThrownBy(() -> runtime.start(spec("dep_x", "prj_a", "art_noimage", Map.of(), InstanceType.STARTER), log))
                .isInstanceOf(StartFailedException.class)
                .hasMessageContaining("runs images")
                .hasMessageContaining("SLIPWAY_IMAGE_REGISTRY");
        assertThat(client.apps().deployments().inNamespace(NS).list().getItems()).isEmpty();
        assertThat(client.services().inNamespace(NS).list().getItems()).isEmpty();
        assertThat(client.secrets().inNamespace(NS).list().getItems()).isEmpty();
    }

    @Test
    void promotionMovesTheProductionSelectorAndAWarmRollbackMovesItBack_kubeProxyPlayed() throws Exception {
        Instance a = runtime.start(spec("dep_a"), new RecordingLog());
        Instance prodA = runtime.switchProduction("prj_a", "dep_a");
        Service prod = client.services().inNamespace(NS).withName("p-prj-a").get();
        assertThat(prod.getMetadata().getLabels()).containsEntry("slipway.dev/project", "prj_a")
                .containsEntry("slipway.dev/account", "acc_1").containsEntry("slipway.dev/role", "production")
                .doesNotContainKey("slipway.dev/deployment");
        assertThat(prod.getSpec().getSelector()).isEqualTo(Map.of("app.kubernetes.io/managed-by", "slipway", "slipway.dev/deployment", "dep_a"));
        assertThat(prodA.port()).isNotEqualTo(a.port());
        // read without moving it, as another server routing a request or restoring its routes
        assertThat(runtime(KubernetesSettings.LOCAL.withEnabled(true), Duration.ofSeconds(10)).production("prj_a"))
                .hasValueSatisfying(p -> assertThat(p.deploymentId() + "@" + p.host() + ":" + p.port())
                        .isEqualTo("dep_a@" + prodA.host() + ":" + prodA.port()));
        assertThat(runtime.production("prj_unknown")).isEmpty();
        assertThat(get(prodA)).isEqualTo("app dep_a");

        Instance b = runtime.start(spec("dep_b"), new RecordingLog());
        long started = System.nanoTime();
        Instance prodB = runtime.switchProduction("prj_a", "dep_b");
        long switchMicros = (System.nanoTime() - started) / 1000;
        assertThat(prodB.host() + ":" + prodB.port()).isEqualTo(prodA.host() + ":" + prodA.port());
        assertThat(client.services().inNamespace(NS).withName("p-prj-a").get().getSpec().getSelector())
                .containsEntry("slipway.dev/deployment", "dep_b");
        assertThat(get(prodB)).isEqualTo("app dep_b");
        assertThat(get(a)).isEqualTo("app dep_a"); // the previous production is still scaled up: a warm rollback target
        assertThat(client.apps().deployments().inNamespace(NS).withName("d-dep-a").get().getSpec().getReplicas()).isEqualTo(1);

        runtime.switchProduction("prj_a", "dep_a");
        assertThat(client.services().inNamespace(NS).withName("p-prj-a").get().getSpec().getSelector())
                .containsEntry("slipway.dev/deployment", "dep_a");
        assertThat(get(prodA)).isEqualTo("app dep_a");
        assertThat(client.services().inNamespace(NS).list().getItems()).hasSize(3); // two deployments, one production
        assertThat(runtime.serves(prodA.port())).isTrue();
        System.out.println("MEASURE production selector switch against the mock API server: " + switchMicros + " µs");
        assertThat(b.port()).isNotIn(a.port(), prodA.port());
    }

    @Test
    void retirementScalesToZeroKeepingTheObjectsAndAColdRollbackScalesBackUp_kubeletPlayed() throws Exception {
        Instance a = runtime.start(spec("dep_a"), new RecordingLog());
        runtime.stop("dep_a");
        Deployment d = client.apps().deployments().inNamespace(NS).withName("d-dep-a").get();
        assertThat(d.getSpec().getReplicas()).isZero();
        assertThat(client.services().inNamespace(NS).withName("d-dep-a").get()).isNotNull();
        assertThat(client.secrets().inNamespace(NS).withName("d-dep-a-env").get()).isNotNull();
        assertThat(client.network().v1().networkPolicies().inNamespace(NS).withName("d-dep-a").get()).isNotNull();
        assertThat(runtime.get("dep_a")).isEmpty();
        assertThat(runtime.serves(a.port())).isFalse();
        Await.until(Duration.ofSeconds(5), "the played kubelet stops the pod", () -> cluster.podCount() == 0);

        RecordingLog log = new RecordingLog();
        Instance again = runtime.start(spec("dep_a"), log);
        assertThat(client.apps().deployments().inNamespace(NS).withName("d-dep-a").get().getSpec().getReplicas()).isEqualTo(1);
        assertThat(again.host() + ":" + again.port()).isEqualTo(a.host() + ":" + a.port());
        assertThat(log.entries().toString()).contains("Scaling slipway-apps/d-dep-a back up from zero");
        assertThat(get(again)).isEqualTo("app dep_a");
        assertThat(runtime.serves(again.port())).isTrue();
    }

    @Test
    void aPodThatNeverBecomesReadyFailsTheStartAndItsObjectsAreDeleted_kubeletPlaysAPodNeverReady() {
        cluster.neverReady.add("dep_bad");
        KubernetesRuntime quick = runtime(KubernetesSettings.LOCAL.withEnabled(true), Duration.ofSeconds(1));
        assertThatThrownBy(() -> quick.start(spec("dep_bad"), new RecordingLog())).isInstanceOf(StartFailedException.class);
        assertThat(client.apps().deployments().inNamespace(NS).withName("d-dep-bad").get()).isNull();
        assertThat(client.services().inNamespace(NS).withName("d-dep-bad").get()).isNull();
        assertThat(client.secrets().inNamespace(NS).withName("d-dep-bad-env").get()).isNull();
        assertThat(client.network().v1().networkPolicies().inNamespace(NS).withName("d-dep-bad").get()).isNull();
        assertThat(quick.get("dep_bad")).isEmpty();
    }

    @Test
    void deleteRemovesEveryObjectOfADeploymentAndOfAProject_kubeletPlayed() {
        runtime.start(spec("dep_a"), new RecordingLog());
        runtime.start(spec("dep_b"), new RecordingLog());
        runtime.switchProduction("prj_a", "dep_b");
        runtime.delete("dep_a");
        assertThat(client.apps().deployments().inNamespace(NS).withName("d-dep-a").get()).isNull();
        assertThat(client.services().inNamespace(NS).withName("d-dep-a").get()).isNull();
        assertThat(client.secrets().inNamespace(NS).withName("d-dep-a-env").get()).isNull();
        assertThat(client.network().v1().networkPolicies().inNamespace(NS).withName("d-dep-a").get()).isNull();
        assertThat(client.apps().deployments().inNamespace(NS).withName("d-dep-b").get()).isNotNull();

        runtime.deleteProject("prj_a");
        assertThat(client.apps().deployments().inNamespace(NS).list().getItems()).isEmpty();
        assertThat(client.services().inNamespace(NS).list().getItems()).isEmpty();
        assertThat(client.secrets().inNamespace(NS).list().getItems()).isEmpty();
        assertThat(client.network().v1().networkPolicies().inNamespace(NS).list().getItems()).isEmpty();
    }

    @Test
    void aProjectsVolumeIsAClaimKeptAcrossDeploysMountedInEveryReplicaAndDeletedWithTheProject_kubeletPlayed() throws Exception {
        var volume = new dev.slipway.runtime.Volume("data", "/data", 64);
        RecordingLog log = new RecordingLog();
        runtime.start(spec("dep_v1").withVolumes(List.of(volume)).withReplicas(2), log);
        var claim = client.persistentVolumeClaims().inNamespace(NS).withName("v-prj-a-data").get();
        assertThat(claim).isNotNull();
        assertThat(claim.getSpec().getResources().getRequests().get("storage").toString()).isEqualTo("64Mi");
        assertThat(claim.getSpec().getAccessModes()).containsExactly("ReadWriteMany");
        assertThat(claim.getMetadata().getLabels()).containsEntry("slipway.dev/project", "prj_a");
        Deployment d = client.apps().deployments().inNamespace(NS).withName("d-dep-v1").get();
        assertThat(d.getSpec().getReplicas()).isEqualTo(2);
        PodSpec pod = d.getSpec().getTemplate().getSpec();
        assertThat(pod.getSecurityContext().getFsGroup()).isEqualTo(65532L);
        assertThat(pod.getVolumes()).anySatisfy(v -> assertThat(v.getPersistentVolumeClaim().getClaimName()).isEqualTo("v-prj-a-data"));
        assertThat(pod.getContainers().getFirst().getVolumeMounts()).anySatisfy(m -> assertThat(m.getMountPath()).isEqualTo("/data"));
        assertThat(log.text()).contains("Volume data is the claim " + NS + "/v-prj-a-data (64 MB)");

        runtime.start(spec("dep_v2").withVolumes(List.of(volume)), new RecordingLog()); // the next deploy keeps it
        assertThat(client.persistentVolumeClaims().inNamespace(NS).withName("v-prj-a-data").get().getMetadata().getUid())
                .isEqualTo(claim.getMetadata().getUid());
        assertThat(runtime.scale("dep_v2", 3, new RecordingLog())).isPresent();
        assertThat(client.apps().deployments().inNamespace(NS).withName("d-dep-v2").get().getSpec().getReplicas()).isEqualTo(3);

        runtime.deleteProject("prj_a");
        runtime.deleteVolumes("prj_a");
        assertThat(client.persistentVolumeClaims().inNamespace(NS).list().getItems()).isEmpty();
    }

    @Test
    void anotherServerAndARestartedOneSeeTheAppsFromTheLabels_kubeletPlayed() throws Exception {
        Instance a = runtime.start(spec("dep_a"), new RecordingLog());
        runtime.start(spec("dep_b"), new RecordingLog());
        runtime.stop("dep_b");

        KubernetesRuntime other = runtime(KubernetesSettings.LOCAL.withEnabled(true), Duration.ofSeconds(10));
        assertThat(other.get("dep_a")).hasValueSatisfying(i -> assertThat(i.host() + ":" + i.port()).isEqualTo(a.host() + ":" + a.port()));
        assertThat(other.get("dep_b")).isEmpty();

        KubernetesRuntime restarted = runtime(KubernetesSettings.LOCAL.withEnabled(true), Duration.ofSeconds(10));
        var report = restarted.recover(id -> new RecordingLog());
        assertThat(report.killedOrphans()).isZero();
        assertThat(report.running()).extracting(Instance::deploymentId).containsExactly("dep_a");
        assertThat(report.failing()).isEmpty();
        assertThat(restarted.serves(a.port())).isTrue();
        assertThat(restarted.list()).extracting(Instance::deploymentId).containsExactly("dep_a");
        assertThat(get(restarted.get("dep_a").orElseThrow())).isEqualTo("app dep_a");
        // the scaled-down one is woken by a start from zero, through the server that did not stop it
        assertThat(get(other.start(spec("dep_b"), new RecordingLog()))).isEqualTo("app dep_b");
    }

    @Test
    void oneNamespacePerAccountIsMadeRestricted_kubeletPlayed() {
        KubernetesSettings perAccount = new KubernetesSettings(true, null, KubernetesSettings.NamespaceMode.ACCOUNT,
                "slipway-apps", "slipway", KubernetesSettings.DEFAULT_CLUSTER_CIDRS);
        KubernetesRuntime accounts = runtime(perAccount, Duration.ofSeconds(10));
        Instance i = accounts.start(spec("dep_n"), new RecordingLog());
        var ns = client.namespaces().withName("slipway-apps-acc-1").get();
        assertThat(ns).isNotNull();
        assertThat(ns.getMetadata().getLabels()).containsEntry("pod-security.kubernetes.io/enforce", "restricted")
                .containsEntry("slipway.dev/account", "acc_1");
        assertThat(client.apps().deployments().inNamespace("slipway-apps-acc-1").withName("d-dep-n").get()).isNotNull();
        // the runtime's rules in this namespace only: deploy/kubernetes/per-account's ClusterRole, bound here
        var binding = client.rbac().roleBindings().inNamespace("slipway-apps-acc-1").withName("slipway-runtime").get();
        assertThat(binding.getRoleRef().getKind() + "/" + binding.getRoleRef().getName()).isEqualTo("ClusterRole/slipway-runtime-apps");
        assertThat(binding.getSubjects()).singleElement().satisfies(s ->
                assertThat(s.getKind() + " " + s.getNamespace() + "/" + s.getName()).isEqualTo("ServiceAccount slipway/slipway"));
        assertThat(client.rbac().clusterRoleBindings().list().getItems()).isEmpty();
        assertThat(client.apps().deployments().inNamespace(NS).withName("d-dep-n").get()).isNull();
        assertThat(accounts.get("dep_n")).contains(i);
        accounts.stop("dep_n");
        assertThat(client.apps().deployments().inNamespace("slipway-apps-acc-1").withName("d-dep-n").get().getSpec().getReplicas()).isZero();
    }

    @Test
    void objectsWrittenPerDeploy() {
        int before = server.getRequestCount();
        runtime.start(spec("dep_m"), new RecordingLog());
        int start = server.getRequestCount() - before;
        before = server.getRequestCount();
        runtime.switchProduction("prj_a", "dep_m");
        int promote = server.getRequestCount() - before;
        System.out.println("MEASURE API requests of a start (all clients, the players' polls included): " + start
                + "; of a production switch: " + promote);
        assertThat(client.apps().deployments().inNamespace(NS).list().getItems()).hasSize(1);
        assertThat(client.services().inNamespace(NS).list().getItems()).hasSize(2);
        assertThat(client.secrets().inNamespace(NS).list().getItems()).hasSize(1);
        assertThat(client.network().v1().networkPolicies().inNamespace(NS).list().getItems()).hasSize(1);
    }

    private void assertObjects(String deploymentId, boolean present) {
        String name = Names.deployment(deploymentId);
        List<Object> objects = new ArrayList<>();
        objects.add(client.apps().deployments().inNamespace(NS).withName(name).get());
        objects.add(client.services().inNamespace(NS).withName(name).get());
        objects.add(client.network().v1().networkPolicies().inNamespace(NS).withName(name).get());
        objects.add(client.secrets().inNamespace(NS).withName(Names.secret(deploymentId)).get());
        if (present) assertThat(objects).as(deploymentId + "'s four objects").doesNotContainNull();
        else assertThat(objects).as(deploymentId + "'s four objects").containsOnlyNulls();
    }

    @Test
    void theObjectsOfAFailedDeploymentAndOfOneThatCannotRunAgainAreSweptAtARestartButNotProductions_kubeletPlayed() {
        Set<String> finished = ConcurrentHashMap.newKeySet();
        RuntimeSettings options = RuntimeSettings.defaults(List.of("us-east-1")).withHealthTimeout(Duration.ofSeconds(10));
        Supplier<KubernetesRuntime> server = () -> new KubernetesRuntime(KubernetesRuntimeTest.server.createClient(),
                KubernetesSettings.LOCAL.withEnabled(true), EgressAllow.NONE, options, Clock.systemUTC(), artifact -> Optional.of(IMAGE),
                project -> "acc_1", finished::contains);
        KubernetesRuntime first = server.get();
        first.start(spec("dep_live"), new RecordingLog());
        first.switchProduction("prj_a", "dep_live");
        first.start(spec("dep_failed"), new RecordingLog()); // started, then its deployment failed (say its promotion did)
        first.start(spec("dep_pruned"), new RecordingLog());
        first.stop("dep_pruned"); // retired, scaled to zero: a cold rollback target, until its build is pruned
        first.start(spec("dep_kept"), new RecordingLog());
        first.stop("dep_kept");
        assertThat(first.sweep()).isEmpty(); // nothing is finished yet: nothing is touched

        finished.addAll(Set.of("dep_failed", "dep_pruned", "dep_live")); // dep_live: a store that is wrong about production
        first.close();
        KubernetesRuntime restarted = server.get();
        try {
            restarted.recover(id -> new RecordingLog()); // a restart sweeps at once, then every minute
            assertObjects("dep_failed", false);
            assertObjects("dep_pruned", false);
            assertObjects("dep_kept", true);
            assertObjects("dep_live", true); // the production Service selects it: never swept
            assertThat(client.services().inNamespace(NS).withName("p-prj-a").get().getSpec().getSelector())
                    .containsEntry("slipway.dev/deployment", "dep_live");
            assertThat(restarted.sweep()).isEmpty();
        } finally {
            restarted.close();
        }
    }

    @Test
    void aRetirementPendingAtARestartIsResumedFromTheClusterAndScalesToZero_kubeletPlayed() throws Exception {
        try (TestStore store = TestStore.create(Dialect.H2); Database db = Database.open(store.jdbcUrl(), 4)) {
            InstanceStore instances = new InstanceStore(db.jdbi(), SecretBox.fromBase64(RuntimeFixture.SECRET_KEY),
                    Clock.systemUTC(), "node_k8s");
            Duration window = Duration.ofSeconds(3);
            KubernetesRuntime first = runtime(KubernetesSettings.LOCAL.withEnabled(true), Duration.ofSeconds(10));
            first.start(spec("dep_old"), new RecordingLog());
            first.switchProduction("prj_a", "dep_old");
            first.start(spec("dep_new"), new RecordingLog());
            first.switchProduction("prj_a", "dep_new");
            RetiringPool pool = new RetiringPool(first, instances, Clock.systemUTC(), window);
            Instant retiredAt = Instant.now();
            pool.retire("dep_old");
            String stopAfter = client.apps().deployments().inNamespace(NS).withName("d-dep-old").get()
                    .getMetadata().getAnnotations().get("slipway.dev/stop-after");
            assertThat(Instant.parse(stopAfter)).isBetween(retiredAt.plus(window).minusSeconds(1), retiredAt.plus(window).plusSeconds(1));
            // the server stops before the window has passed: its timer goes with it
            pool.close();
            first.close();
            assertThat(client.apps().deployments().inNamespace(NS).withName("d-dep-old").get().getSpec().getReplicas()).isEqualTo(1);

            KubernetesRuntime restarted = runtime(KubernetesSettings.LOCAL.withEnabled(true), Duration.ofSeconds(10));
            RetiringPool resumed = new RetiringPool(restarted, instances, Clock.systemUTC(), window);
            try {
                restarted.recover(id -> new RecordingLog());
                resumed.resume();
                assertThat(resumed.retiring()).containsOnlyKeys("dep_old");
                Await.until(Duration.ofSeconds(20), "the resumed retirement scales dep_old to zero", () ->
                        client.apps().deployments().inNamespace(NS).withName("d-dep-old").get().getSpec().getReplicas() == 0);
                assertThat(Instant.now()).isAfterOrEqualTo(Instant.parse(stopAfter));
                Deployment old = client.apps().deployments().inNamespace(NS).withName("d-dep-old").get();
                assertThat(old.getMetadata().getAnnotations()).doesNotContainKey("slipway.dev/stop-after");
                assertThat(client.apps().deployments().inNamespace(NS).withName("d-dep-new").get().getSpec().getReplicas()).isEqualTo(1);
                // a cold rollback scales it up with no retirement pending: a later restart does not stop it
                restarted.start(spec("dep_old"), new RecordingLog());
                assertThat(restarted.retirements()).isEmpty();
            } finally {
                resumed.close();
                restarted.close();
            }
        }
    }
}
