package dev.slipway.backup;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Tier;
import dev.slipway.config.ServerConfig;
import dev.slipway.core.MicrosClock;
import dev.slipway.edge.EdgeSettings;
import dev.slipway.server.Slipway;
import dev.slipway.store.Database;
import dev.slipway.store.Dialect;
import dev.slipway.pipeline.NodeApp;
import dev.slipway.testing.Apps;
import dev.slipway.testing.Await;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.JavaProcess;
import dev.slipway.testing.Statuses;
import dev.slipway.testing.TestServer;
import dev.slipway.testing.TestStore;
import dev.slipway.testing.Zips;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorOutputStream;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code slipway backup} of a running server and {@code slipway restore} of it on a machine where that server is
 * gone: the restored server serves the same app at the same address with the same secrets; a file that was
 * altered, or a data dir that is not empty, is refused and nothing is written.
 */
@EachStore
@EndToEnd
class BackupRestoreTest {
    private static final Duration RUN = Duration.ofMinutes(2);
    /** The app's answer: its version, and the length of the secret it was started with. */
    private static final String ANSWER = "app:backed-up token-length:12 extra:-";
    private final Dialect kind;

    BackupRestoreTest(Dialect kind) {
        this.kind = kind;
    }


    private JavaProcess.Result slipway(Path dataDir, String databaseUrl, String... args) {
        Map<String, String> env = new HashMap<>(Map.of("SLIPWAY_DATA_DIR", dataDir.toString()));
        if (databaseUrl != null) env.put("SLIPWAY_DATABASE_URL", databaseUrl);
        return JavaProcess.run(env, dataDir.getParent(), args);
    }

    @Test
    void aBackupOfARunningServerRestoresOnAFreshMachineAndServesTheSameApp() throws Exception {
        Path backups = Files.createTempDirectory("slipway-backups-");
        Path file = backups.resolve("slipway.tar.gz");
        String restoredDb = null;
        try {
            Path dataDir;
            String secretKey, name, projectId, apiKey;
            List<String> deployments;
            try (TestServer server = TestServer.start(kind)) {
                dataDir = server.store().dataDir();
                secretKey = server.store().secretKey();
                TestServer.Tenant tenant = server.tenant(Tier.TEAM);
                apiKey = tenant.key();
                Http http = tenant.http();
                var up = http.send("POST", "/v1/uploads", "application/zip", Zips.of(NodeApp.version("backed-up")));
                assertThat(up.status()).as(up.body()).isEqualTo(201);
                var m = http.post("/v1/migrations", "{\"source\":\"zip\",\"upload_id\":\"" + up.json().at("/data/id").asText()
                        + "\",\"framework\":\"node-express\",\"env_vars\":{\"SECRET_TOKEN\":\"s3cret-value\"}}");
                assertThat(m.status()).as(m.body()).isEqualTo(201);
                JsonNode done = Statuses.await(http, "migrations", m.json().at("/data/id").asText(), "complete", RUN);
                projectId = done.get("project_id").asText();
                JsonNode project = http.get("/v1/projects/" + projectId).json().get("data");
                name = project.get("name").asText();
                assertThat(Apps.get(project.get("url").asText()).body()).isEqualTo(ANSWER);
                deployments = ids(http.get("/v1/deployments?project_id=" + projectId).json());

                JavaProcess.Result made = slipway(dataDir, kind == Dialect.POSTGRES ? server.store().jdbcUrl() : null,
                        "backup", file.toString());
                assertThat(made.exitCode()).as(made.stderr() + made.stdout()).isZero();
                assertThat(made.stdout()).contains("Backed up the " + kind.name().toLowerCase() + " store")
                        .contains("does not hold the secret key");
                assertThat(Files.getPosixFilePermissions(file)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
                assertThat(http.get("/v1/projects/" + projectId).status()).as("the server ran on").isEqualTo(200);
            }
            assertThat(Files.exists(dataDir)).as("the first machine is gone").isFalse();
            // the new machine keeps its data somewhere else: the store's paths to the builds move there
            Path elsewhere = Files.createDirectories(backups.resolve("new-machine")).resolve("slipway-data");

            String databaseUrl = null;
            if (kind == Dialect.POSTGRES) {
                restoredDb = "slipway_r_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
                admin("CREATE DATABASE " + restoredDb);
                databaseUrl = TestStore.withDatabase(System.getenv(TestStore.POSTGRES_ENV), restoredDb);
            }
            Path tampered = backups.resolve("tampered.tar.gz");
            alter(file, tampered, "data/artifacts/");
            String target = databaseUrl;
            assertThatThrownBy(() -> Restore.run(tampered, elsewhere, target))
                    .hasMessageContaining("Not a backup that can be restored: data/artifacts/").hasMessageContaining("differs from its manifest");
            assertThat(Files.exists(elsewhere)).as("a refused restore writes nothing").isFalse();

            JavaProcess.Result restored = slipway(elsewhere, databaseUrl, "restore", file.toString());
            assertThat(restored.exitCode()).as(restored.stderr()).isZero();
            assertThat(restored.stdout()).contains("Restored the " + kind.name().toLowerCase() + " store")
                    .contains("start the server with the same SLIPWAY_SECRET_KEY");
            assertThatThrownBy(() -> Restore.run(file, elsewhere, target)).hasMessageContaining("is not empty: restore into a new one");

            ServerConfig config = ServerConfig.builder(elsewhere).environment(System.getenv()).ports(0, 0)
                    .databaseUrl(databaseUrl != null ? databaseUrl : Database.h2Url(elsewhere)).secretKey(secretKey)
                    .createDefaultAccount(false).edge(EdgeSettings.INLINE).build();
            try (Slipway slipway = Slipway.start(config, MicrosClock.system(), new PrintStream(OutputStream.nullOutputStream()))) {
                Http http = new Http("http://127.0.0.1:" + slipway.apiPort(), apiKey);
                var project = http.get("/v1/projects/" + projectId);
                assertThat(project.status()).as("the same key opens the same project").isEqualTo(200);
                assertThat(ids(http.get("/v1/deployments?project_id=" + projectId).json())).isEqualTo(deployments);
                assertThat(slipway.projects().envVars(projectId)).as("the secrets decrypt").containsEntry("SECRET_TOKEN", "s3cret-value");
                List<String> roots = slipway.database().jdbi().withHandle(h -> h.createQuery("SELECT root FROM artifacts")
                        .mapTo(String.class).list());
                assertThat(roots).as("the builds are named by their new path").isNotEmpty()
                        .allSatisfy(root -> assertThat(root).startsWith(elsewhere + "/"));
                String url = "http://" + name + ".localhost:" + slipway.appsPort();
                Await.until(RUN, "the restored server to start the app again and serve it at its address",
                        () -> Apps.get(url).body().equals(ANSWER));
            }
        } finally {
            TestStore.deleteTree(backups);
            if (restoredDb != null) admin("DROP DATABASE IF EXISTS " + restoredDb + " WITH (FORCE)");
        }
    }

    private static List<String> ids(JsonNode page) {
        return java.util.stream.StreamSupport.stream(page.get("data").spliterator(), false).map(n -> n.get("id").asText()).toList();
    }

    private static void admin(String sql) throws Exception {
        try (var c = DriverManager.getConnection(System.getenv(TestStore.POSTGRES_ENV)); var s = c.createStatement()) {
            s.execute(sql);
        }
    }

    /** A copy of {@code from} whose first entry under {@code prefix} has one byte changed, the manifest left as it was. */
    private static void alter(Path from, Path to, String prefix) throws IOException {
        boolean changed = false;
        try (var in = new TarArchiveInputStream(new GzipCompressorInputStream(Files.newInputStream(from)));
             var out = new TarArchiveOutputStream(new GzipCompressorOutputStream(Files.newOutputStream(to)))) {
            out.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
            for (TarArchiveEntry e = in.getNextEntry(); e != null; e = in.getNextEntry()) {
                byte[] data = in.readAllBytes();
                if (!changed && e.getName().startsWith(prefix) && data.length > 0) {
                    data[0] ^= 1;
                    changed = true;
                }
                TarArchiveEntry copy = new TarArchiveEntry(e.getName());
                copy.setSize(data.length);
                out.putArchiveEntry(copy);
                out.write(data);
                out.closeArchiveEntry();
            }
        }
        assertThat(changed).as("an entry under " + prefix).isTrue();
    }
}
