package dev.slipway.source;

import dev.slipway.accounts.Tier;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Await;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.ServerPerStore;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import static org.assertj.core.api.Assertions.assertThat;

/** Uploads per tier: bytes kept (413 past them) and days kept (then deleted, unless a run still waits for them). */
@EachStore
@EndToEnd
class UploadQuotaTest {
    final Dialect kind = server.kind();

    @RegisterExtension
    static final ServerPerStore server = ServerPerStore.start();

    private static byte[] zip(String text) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(bytes)) {
            zip.putNextEntry(new ZipEntry("index.html"));
            zip.write(text.getBytes(StandardCharsets.UTF_8));
        }
        return bytes.toByteArray();
    }

    private static String upload(Http http, byte[] zip) {
        var r = http.send("POST", "/v1/uploads", "application/zip", zip);
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().at("/data/id").asText();
    }

    private static void age(String uploadId, Duration by) {
        server.slipway().database().jdbi().useHandle(h -> h.createUpdate("UPDATE uploads SET created_at = :at WHERE id = :id")
                .bind("at", Instant.now().minus(by)).bind("id", uploadId).execute());
    }

    @Test
    void anUploadPastTheTiersBytesIs413AndKeepsWhatWasStored() throws Exception {
        var tenant = server.tenant(Tier.FREE);
        String first = upload(tenant.http(), zip("first"));
        // what the account keeps is counted from the store: make its first upload nearly fill the quota
        server.slipway().database().jdbi().useHandle(h -> h.createUpdate("UPDATE uploads SET size_bytes = :s WHERE id = :id")
                .bind("s", Tier.FREE.uploadBytes() - 100).bind("id", first).execute());
        var refused = tenant.http().send("POST", "/v1/uploads", "application/zip", zip("second, over the quota"));
        assertThat(refused.status()).as(refused.body()).isEqualTo(413);
        assertThat(refused.json().at("/error/code").asText()).isEqualTo("payload_too_large");
        assertThat(refused.json().at("/error/message").asText()).contains("free tier keeps 500 MB").contains("7 days");
        assertThat(tenant.http().get("/v1/uploads/" + first).status()).isEqualTo(200);
        assertThat(uploadFiles()).noneMatch(p -> p.getFileName().toString().endsWith(".part"));
        // another account is not affected
        upload(server.tenant(Tier.FREE).http(), zip("someone else"));
    }

    /**
     * Two uploads that each fit under the quota alone, but not together, both started before either was kept:
     * each passed the check at its start, and the one that finishes second is still refused.
     */
    @Test
    void uploadsReceivedAtTheSameTimeAreCountedOneAfterTheOther() throws Exception {
        var tenant = server.tenant(Tier.FREE);
        byte[] zip = zip("racing");
        String first = upload(tenant.http(), zip("first"));
        server.slipway().database().jdbi().useHandle(h -> h.createUpdate("UPDATE uploads SET size_bytes = :s WHERE id = :id")
                .bind("s", Tier.FREE.uploadBytes() - zip.length - zip.length / 2).bind("id", first).execute());
        long parts = partFiles();
        try (var a = new Socket("127.0.0.1", server.slipway().apiPort());
             var b = new Socket("127.0.0.1", server.slipway().apiPort())) {
            for (var socket : List.of(a, b)) {
                socket.setSoTimeout(20_000);
                socket.getOutputStream().write(("POST /v1/uploads HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + tenant.key()
                        + "\r\nContent-Type: application/zip\r\nContent-Length: " + zip.length + "\r\nConnection: close\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                socket.getOutputStream().write(zip, 0, zip.length / 2);
                socket.getOutputStream().flush();
            }
            // each request's file to receive into is made after its quota check
            Await.until(Duration.ofSeconds(10), "both uploads past their first check", () -> partFiles() >= parts + 2);
            List<String> statuses = new ArrayList<>();
            for (var socket : List.of(a, b)) {
                socket.getOutputStream().write(zip, zip.length / 2, zip.length - zip.length / 2);
                socket.getOutputStream().flush();
            }
            for (var socket : List.of(a, b)) {
                String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                statuses.add(answer.substring(9, 12));
            }
            assertThat(statuses).as("one kept, one past the quota").containsExactlyInAnyOrder("201", "413");
        }
        long kept = server.slipway().stores().uploads().bytesKept(tenant.account().id());
        assertThat(kept).isLessThanOrEqualTo(Tier.FREE.uploadBytes());
    }

    @Test
    void oldUploadsAreDeletedUnlessARunStillNeedsThem() throws Exception {
        var free = server.tenant(Tier.FREE);
        var team = server.tenant(Tier.TEAM);
        String old = upload(free.http(), zip("old"));
        String fresh = upload(free.http(), zip("fresh"));
        String teamOld = upload(team.http(), zip("team, 8 days"));
        String waitedFor = upload(free.http(), zip("waited for"));
        age(old, Duration.ofDays(8));
        age(teamOld, Duration.ofDays(8));
        age(waitedFor, Duration.ofDays(8));
        // a run still waiting for its upload keeps it
        String project = "prj_quota_" + kind;
        server.slipway().database().jdbi().useTransaction(h -> {
            h.execute("INSERT INTO projects (id, account_id, name, source, region, created_at) VALUES (?, ?, ?, 'zip', 'us-east-1', ?)",
                    project, free.account().id(), "quota-" + kind.name().toLowerCase(), Instant.now());
            h.execute("INSERT INTO migrations (id, account_id, project_id, source, upload_id, status, created_at) "
                    + "VALUES (?, ?, ?, 'zip', ?, 'pending', ?)", "mig_quota_" + kind, free.account().id(), project, waitedFor, Instant.now());
        });
        Path oldFile = server.slipway().config().dataDir().resolve("uploads").resolve(old + ".zip");
        assertThat(oldFile).exists();

        assertThat(server.slipway().stores().uploads().sweep()).isEqualTo(1);

        assertThat(free.http().get("/v1/uploads/" + old).status()).isEqualTo(404);
        assertThat(oldFile).doesNotExist();
        assertThat(free.http().get("/v1/uploads/" + fresh).status()).isEqualTo(200);
        assertThat(team.http().get("/v1/uploads/" + teamOld).status()).as("team keeps 90 days").isEqualTo(200);
        assertThat(free.http().get("/v1/uploads/" + waitedFor).status()).as("a pending migration needs it").isEqualTo(200);
    }

    /** Uploads being received now: each has its {@code .part} file. */
    private static long partFiles() {
        try {
            return uploadFiles().stream().filter(p -> p.getFileName().toString().endsWith(".part")).count();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<Path> uploadFiles() throws Exception {
        try (var files = Files.list(server.slipway().config().dataDir().resolve("uploads"))) {
            return files.toList();
        }
    }
}
