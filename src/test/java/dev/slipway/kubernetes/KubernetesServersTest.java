package dev.slipway.kubernetes;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Tier;
import dev.slipway.images.ImageSettings;
import dev.slipway.images.LoopbackRegistry;
import dev.slipway.server.Slipway;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Apps;
import dev.slipway.testing.Await;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.Statuses;
import dev.slipway.testing.TestServer;
import dev.slipway.testing.TestStore;
import dev.slipway.testing.GitServer;
import dev.slipway.usage.UsageSample;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Two Slipway servers on one PostgreSQL store with {@code --runtime=kubernetes}, on fabric8's mock API server
 * (CRUD) reached through a kubeconfig file: a deploy through one (a real build, a real image pushed to a
 * loopback registry) and requests through the other's apps listener reach the app's Service. The mock runs
 * no pods: {@link ClusterPlayer} plays the kubelet (a loopback HTTP server answering {@code app <deployment
 * id>} stands in for the image's container) and kube-proxy (each Service's cluster IP and port lead to it).
 */
@EnableKubernetesMockClient(crud = true, https = false)
@EndToEnd
class KubernetesServersTest {
    private static final Duration RUN = Duration.ofMinutes(5);
    static KubernetesMockServer server;
    static KubernetesClient client;

    @Test
    void aDeployThroughOneServerIsServedThroughTheOther_kubeletAndKubeProxyPlayed() throws Exception {
        String pg = System.getenv(TestStore.POSTGRES_ENV);
        assumeTrue(pg != null && !pg.isBlank(), "two servers share a store only on PostgreSQL");
        Path kubeconfig = kubeconfig();
        try (LoopbackRegistry registry = LoopbackRegistry.start(); GitServer git = GitServer.start();
             ClusterPlayer cluster = new ClusterPlayer(client)) {
            String base = registry.pushBase("base/node:test");
            KubernetesSettings kube = KubernetesSettings.LOCAL.withEnabled(true).withKubeconfig(kubeconfig.toString());
            try (TestServer a = TestServer.start(Dialect.POSTGRES, c -> c
                    .images(new ImageSettings(registry.host() + "/slipway", Map.of("node", base), true)).kubernetes(kube)
                    .gitHosts(git.hosts()))) {
                Slipway b = a.startPeer();
                try {
                    assertThat(a.slipway().engine().runtime()).isInstanceOf(KubernetesRuntime.class);
                    assertThat(b.engine().runtime()).isInstanceOf(KubernetesRuntime.class);
                    TestServer.Tenant tenant = a.tenant(Tier.TEAM);
                    Http http = tenant.http();
                    // from git, not an upload: whichever server claims the job fetches the source (an upload is
                    // in the data dir of the server it was sent to)
                    git.createRepo("kube/app");
                    git.commit("kube/app", "main", Map.of(
                            "package.json", "{\"name\":\"kube-app\",\"version\":\"1.0.0\",\"private\":true,\"scripts\":{\"start\":\"node server.js\"}}",
                            "server.js", "require('http').createServer((q, s) => s.end('local')).listen(process.env.PORT);"), "the app");
                    JsonNode done = migrate(http, "{\"source\":\"github\",\"repo\":\"kube/app\",\"framework\":\"node\"}");
                    String project = done.get("project_id").asText();
                    JsonNode deployments = http.get("/v1/deployments?project_id=" + project).json().get("data");
                    String deploymentId = deployments.get(0).get("id").asText();
                    JsonNode deployment = http.get("/v1/deployments/" + deploymentId).json().get("data");
                    String image = deployment.get("image").asText();
                    assertThat(image).startsWith(registry.host() + "/slipway/").contains("@sha256:");

                    Deployment d = client.apps().deployments().inNamespace("slipway-apps").withName(Names.deployment(deploymentId)).get();
                    assertThat(d.getSpec().getTemplate().getSpec().getContainers().getFirst().getImage()).isEqualTo(image);
                    assertThat(d.getMetadata().getLabels()).containsEntry(Names.PROJECT, project).containsEntry(Names.DEPLOYMENT, deploymentId);
                    assertThat(client.services().inNamespace("slipway-apps").withName(Names.production(project)).get()
                            .getSpec().getSelector()).containsEntry(Names.DEPLOYMENT, deploymentId);

                    String name = http.get("/v1/projects/" + project).json().at("/data/name").asText();
                    String viaA = "http://" + name + ".localhost:" + a.slipway().appsPort() + "/";
                    String viaB = "http://" + name + ".localhost:" + b.appsPort() + "/";
                    assertThat(Apps.get(viaA).body()).isEqualTo("app " + deploymentId);
                    // the other server never started it: it finds the app's Service through the cluster
                    Await.until(Duration.ofSeconds(20), "the other server to serve " + name,
                            () -> Apps.get(viaB).body().equals("app " + deploymentId));
                    assertThat(b.engine().runtime().get(deploymentId)).isPresent();

                    // a new deployment through the other server: the production Service's selector moves, and the first
                    // server, which keeps polling production all along, follows it (one connection per request)
                    git.commit("kube/app", "main", Map.of("server.js",
                            "require('http').createServer((q, s) => s.end('v2')).listen(process.env.PORT);"), "v2");
                    Http viaPeer = new Http("http://127.0.0.1:" + b.apiPort(), tenant.key());
                    var second = viaPeer.post("/v1/deployments", "{\"project_id\":\"" + project + "\"}");
                    assertThat(second.status()).as(second.body()).isEqualTo(201);
                    String secondId = second.json().at("/data/id").asText();
                    Await.until(RUN, "production through the first server to answer from " + secondId,
                            () -> Apps.get(viaA).body().equals("app " + secondId));
                    // the other server reaches the same Service on a connection of its own: it may take one more poll
                    Await.until(Duration.ofSeconds(20), "production through the other server to answer from " + secondId,
                            () -> Apps.get(viaB).body().equals("app " + secondId));
                    assertThat(client.services().inNamespace("slipway-apps").withName(Names.production(project)).get()
                            .getSpec().getSelector()).containsEntry(Names.DEPLOYMENT, secondId);
                    // the previous production is kept scaled up: a warm rollback target
                    assertThat(client.apps().deployments().inNamespace("slipway-apps").withName(Names.deployment(deploymentId)).get()
                            .getSpec().getReplicas()).isEqualTo(1);

                    // the selector moves before the store makes the deployment live (DeploymentRunner switches, then
                    // promotes): a rollback sent in between is refused as "already production"
                    Statuses.await(http, "deployments", secondId, "live", RUN);
                    // a rollback: the selector moves back to the first deployment's pods
                    var rollback = http.post("/v1/deployments/" + deploymentId + "/rollback", "");
                    assertThat(rollback.status()).as(rollback.body()).isIn(200, 201, 202);
                    Await.until(RUN, "production through the other server to answer from " + deploymentId + " again",
                            () -> Apps.get(viaB).body().equals("app " + deploymentId));
                    assertThat(Apps.get(viaA).body()).isEqualTo("app " + deploymentId);
                    assertThat(client.services().inNamespace("slipway-apps").withName(Names.production(project)).get()
                            .getSpec().getSelector()).containsEntry(Names.DEPLOYMENT, deploymentId);

                    // the pods' usage, from the metrics API: one server reports it (it holds the lease), the other only
                    // the requests it relayed, so the project's memory is its pods' once, not once per server
                    List<UsageSample> fromA = a.slipway().usage().sample(), fromB = b.usage().sample();
                    long pods = a.slipway().engine().runtime().list().stream().filter(i -> i.projectId().equals(project)).count();
                    List<Long> memory = java.util.stream.Stream.concat(fromA.stream(), fromB.stream())
                            .filter(u -> u.projectId().equals(project)).map(UsageSample::memoryBytes).sorted().toList();
                    assertThat(memory).containsExactly(0L, pods * Quantity.getAmountInBytes(new Quantity(ClusterPlayer.POD_MEMORY)).longValue());

                    // a Procfile's release command and workers do not run on Kubernetes yet: the deployment says so
                    // and fails, and production stays
                    git.commit("kube/app", "main", Map.of("Procfile", "web: node server.js\nrelease: node -e 0\nworker: node -e 0\n"),
                            "a release command");
                    var third = http.post("/v1/deployments", "{\"project_id\":\"" + project + "\"}");
                    assertThat(third.status()).as(third.body()).isEqualTo(201);
                    String thirdId = third.json().at("/data/id").asText();
                    Statuses.await(http, "deployments", thirdId, "failed", RUN);
                    List<String> log = new ArrayList<>();
                    http.get("/v1/deployments/" + thirdId + "/logs").json().at("/data/logs").forEach(e -> log.add(e.get("message").asText()));
                    assertThat(log).contains("The Procfile's processes worker do not run on the kubernetes runtime; only web does")
                            .contains("Deployment failed: the Procfile's release: command cannot run on the kubernetes runtime");
                    assertThat(Apps.get(viaA).body()).isEqualTo("app " + deploymentId);
                } finally {
                    b.close();
                }
            }
        } finally {
            Files.deleteIfExists(kubeconfig);
        }
    }

    /**
     * An image built from a Dockerfile is pushed to the platform's registry by its build, and a prebuilt image is
     * run at the digest its tag had: the cluster pulls each as the registry has it.
     */
    @Test
    void aDockerfileBuildAndAPrebuiltImageRunAsTheRegistryHasThem() throws Exception {
        Path kubeconfig = kubeconfig();
        try (LoopbackRegistry registry = LoopbackRegistry.start(); GitServer git = GitServer.start();
             ClusterPlayer cluster = new ClusterPlayer(client)) {
            String busybox = registry.pushBusybox("base/busybox:1");
            KubernetesSettings kube = KubernetesSettings.LOCAL.withEnabled(true).withKubeconfig(kubeconfig.toString());
            try (TestServer s = TestServer.start(Dialect.H2, c -> c.images(new ImageSettings(registry.host() + "/slipway", Map.of(), true))
                    .kubernetes(kube).gitHosts(git.hosts()))) {
                Http http = s.tenant(Tier.TEAM).http();
                git.createRepo("kube/docker");
                git.commit("kube/docker", "main", Map.of("Dockerfile", "FROM " + busybox + "\nRUN echo built > /built.txt\n"
                        + "CMD [\"/bin/busybox\", \"httpd\", \"-f\"]\n"), "a Dockerfile");
                JsonNode built = migrate(http, "{\"source\":\"github\",\"repo\":\"kube/docker\"}");
                String project = built.get("project_id").asText();
                String deploymentId = built.get("deployment_id").asText();
                String image = http.get("/v1/deployments/" + deploymentId).json().at("/data/image").asText();
                String repository = "slipway/" + project.toLowerCase(java.util.Locale.ROOT);
                assertThat(image).startsWith(registry.host() + "/" + repository + "@sha256:");
                assertThat(registry.manifest(repository, image.substring(image.indexOf('@') + 1)).get("layers")).as("pushed").isNotEmpty();
                assertThat(containerImage(deploymentId)).isEqualTo(image);
                String name = http.get("/v1/projects/" + project).json().at("/data/name").asText();
                assertThat(Apps.get("http://" + name + ".localhost:" + s.slipway().appsPort() + "/").body()).isEqualTo("app " + deploymentId);

                JsonNode pulled = migrate(http, "{\"source\":\"image\",\"image\":\"" + busybox + "\"}");
                String pulledId = pulled.get("deployment_id").asText();
                String digest = http.get("/v1/deployments/" + pulledId).json().at("/data/image").asText();
                assertThat(digest).startsWith(registry.host() + "/base/busybox@sha256:");
                assertThat(containerImage(pulledId)).isEqualTo(digest);
            }
        } finally {
            Files.deleteIfExists(kubeconfig);
        }
    }

    private static String containerImage(String deploymentId) {
        Deployment d = client.apps().deployments().inNamespace("slipway-apps").withName(Names.deployment(deploymentId)).get();
        return d.getSpec().getTemplate().getSpec().getContainers().getFirst().getImage();
    }

    private static Path kubeconfig() throws java.io.IOException {
        Path kubeconfig = Files.createTempFile("kubeconfig", ".yaml");
        Files.writeString(kubeconfig, """
                apiVersion: v1
                kind: Config
                clusters:
                - name: mock
                  cluster:
                    server: %s
                contexts:
                - name: mock
                  context: {cluster: mock, user: test, namespace: default}
                current-context: mock
                users:
                - name: test
                  user: {token: test}
                """.formatted(client.getConfiguration().getMasterUrl()));
        return kubeconfig;
    }

    private static JsonNode migrate(Http who, String body) throws Exception {
        var m = who.post("/v1/migrations", body);
        assertThat(m.status()).as(m.body()).isEqualTo(201);
        String id = m.json().at("/data/id").asText();
        return Await.value(RUN, "migration " + id + " to complete", () -> {
            JsonNode d = who.get("/v1/migrations/" + id + "?wait=5").json().get("data");
            String status = d.get("status").asText();
            if (status.equals("failed")) throw new AssertionError("migration failed: " + who.get("/v1/migrations/" + id + "/logs").body());
            return status.equals("complete") ? d : null;
        });
    }
}
