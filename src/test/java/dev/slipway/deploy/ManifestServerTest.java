package dev.slipway.deploy;

import dev.slipway.store.Dialect;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.JavaProcess;
import dev.slipway.testing.TestStore;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The server started as the manifest's container starts it: its args and every env var of deployment.yaml (the
 * Secret's two filled in with this store's URL and key), as a separate JVM. Only the address and ports are moved
 * by flags (flags win over the environment), to loopback and free ports, because this machine is shared; the
 * data dir too, to a temporary one. Its probes' paths must then answer 200 on the API listener.
 */
@EachStore
@EndToEnd
class ManifestServerTest {
    private static final Pattern LISTENING = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)/v1");
    private final Dialect kind;

    ManifestServerTest(Dialect kind) {
        this.kind = kind;
    }

    @Test
    void theServerStartsWithTheManifestsSettingsAndAnswersItsProbes() throws Exception {
        Deployment d = KubernetesManifests.load(KubernetesManifests.DIR).all(Deployment.class).getFirst();
        Container c = d.getSpec().getTemplate().getSpec().getContainers().getFirst();
        try (TestStore store = TestStore.create(kind)) {
            Map<String, String> env = new LinkedHashMap<>();
            for (EnvVar e : c.getEnv()) {
                if (e.getValueFrom() != null) {
                    String key = e.getValueFrom().getSecretKeyRef().getKey();
                    env.put(e.getName(), switch (key) {
                        case "SLIPWAY_SECRET_KEY" -> store.secretKey();
                        case "SLIPWAY_DATABASE_URL" -> store.jdbcUrl();
                        default -> throw new AssertionError("a Secret key this test does not fill: " + key);
                    });
                } else {
                    env.put(e.getName(), e.getValue());
                }
            }
            assertThat(env).containsEntry("SLIPWAY_ISOLATION", "sandbox");
            Path dir = Files.createTempDirectory(store.dataDir(), "manifest-");
            List<String> args = new ArrayList<>(c.getArgs());
            args.addAll(List.of("--host", "127.0.0.1", "--api-port", "0", "--apps-port", "0",
                    "--data-dir", dir.resolve("data").toString()));
            try (JavaProcess server = JavaProcess.start(env, dir, args.toArray(String[]::new))) {
                Matcher m = LISTENING.matcher(server.awaitLine(l -> LISTENING.matcher(l).find(), Duration.ofSeconds(90)));
                assertThat(m.find()).isTrue();
                Http http = new Http("http://127.0.0.1:" + m.group(1), null);
                assertThat(server.output()).contains("store: " + (kind == Dialect.H2 ? "h2" : "postgres"));
                // the sandbox the manifest requires is there, and the apps domain is the manifest's
                // awaited, not read from output(): it is printed after the API line and may not have been read yet
                server.awaitLine(l -> l.startsWith("Slipway apps listening on http://<project>." + env.get("SLIPWAY_APPS_DOMAIN") + ":"),
                        Duration.ofSeconds(10));
                for (Probe probe : List.of(c.getReadinessProbe(), c.getLivenessProbe(), c.getStartupProbe())) {
                    assertThat(probe.getHttpGet().getPort().getStrVal()).isEqualTo("api");
                    var r = http.get(probe.getHttpGet().getPath());
                    assertThat(r.status()).as(probe.getHttpGet().getPath() + ": " + r.body()).isEqualTo(200);
                }
                var ready = http.get(c.getReadinessProbe().getHttpGet().getPath()).json();
                assertThat(ready.path("status").asText()).isEqualTo("ready");
                assertThat(ready.path("isolation").asText()).isEqualTo("sandbox");
                assertThat(ready.has("warning")).isFalse();
                // the secret key never shows in the server's output
                assertThat(server.output()).doesNotContain(store.secretKey());
                server.process().toHandle().destroy();
                assertThat(server.waitForExit(Duration.ofSeconds(40))).isEqualTo(143);
                assertThat(server.output()).contains("Slipway stopped");
            }
        }
    }
}
