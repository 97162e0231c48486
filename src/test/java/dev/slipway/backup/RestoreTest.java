package dev.slipway.backup;

import dev.slipway.core.Digests;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Hostile and broken backup files: each is refused with what is wrong, and nothing is written anywhere. */
class RestoreTest {
    @TempDir
    Path dir;

    private Path tar(String name, Entry... entries) throws IOException {
        Path file = dir.resolve(name);
        try (var out = new TarArchiveOutputStream(new GzipCompressorOutputStream(Files.newOutputStream(file)))) {
            for (Entry e : entries) {
                TarArchiveEntry t = e.link == null ? new TarArchiveEntry(e.name) : new TarArchiveEntry(e.name, TarArchiveEntry.LF_SYMLINK);
                if (e.link != null) t.setLinkName(e.link);
                byte[] data = e.data.getBytes(StandardCharsets.UTF_8);
                if (e.link == null) t.setSize(data.length);
                out.putArchiveEntry(t);
                if (e.link == null) out.write(data);
                out.closeArchiveEntry();
            }
        }
        return file;
    }

    private record Entry(String name, String data, String link) {
        static Entry file(String name, String data) { return new Entry(name, data, null); }
        static Entry symlink(String name, String to) { return new Entry(name, "", to); }
    }

    private void refused(Path file, String why) throws IOException {
        Path target = dir.resolve("data");
        assertThatThrownBy(() -> Restore.run(file, target, null)).hasMessageContaining(why);
        assertThat(target).doesNotExist();
        try (Stream<Path> left = Files.list(dir)) {
            assertThat(left.map(p -> p.getFileName().toString())).as("no staging left").noneMatch(n -> n.startsWith(".slipway-restore-"));
        }
    }

    @Test
    void entriesThatLeaveTheDataDirOrAreLinksAreRefused() throws IOException {
        refused(tar("escape.tar.gz", Entry.file("data/artifacts/../../../escaped", "x")), "an entry a backup never has: data/artifacts/../../../escaped");
        assertThat(dir.getParent().resolve("escaped")).doesNotExist();
        // the tar library drops a leading slash; the name is refused either way
        refused(tar("absolute.tar.gz", Entry.file("/etc/cron.d/x", "x")), "an entry a backup never has: etc/cron.d/x");
        refused(tar("link.tar.gz", Entry.symlink("data/artifacts/art_x/root", "/etc")), "an entry a backup never has: data/artifacts/art_x/root");
        refused(tar("unknown.tar.gz", Entry.file("data/workspaces/x", "x")), "an entry a backup never has: data/workspaces/x");
    }

    /** A backup file as Backup writes it: an H2 store, one app database's dump and the manifest listing them. */
    private Path withAppDatabase(String name) throws IOException {
        java.io.ByteArrayOutputStream zip = new java.io.ByteArrayOutputStream();
        try (var z = new java.util.zip.ZipOutputStream(zip)) {
            z.putNextEntry(new java.util.zip.ZipEntry("slipway.mv.db"));
            z.write("an H2 file".getBytes(StandardCharsets.UTF_8));
            z.closeEntry();
        }
        String h2 = zip.toString(StandardCharsets.ISO_8859_1);
        String dump = "CREATE TABLE notes (value TEXT);";
        String manifest = """
                {"format":1,"store":"h2","schema":"117","created_at":"2026-11-26T10:00:00Z","data_dir":"%s",
                 "entries":[{"name":"store/h2.zip","size":%d,"sha256":"%s"},{"name":"databases/db_x.sql","size":%d,"sha256":"%s"}]}"""
                .formatted(dir.resolve("data"), zip.size(), sha(zip.toByteArray()), dump.length(), sha(dump.getBytes(StandardCharsets.UTF_8)));
        Path file = dir.resolve(name);
        try (var out = new TarArchiveOutputStream(new GzipCompressorOutputStream(Files.newOutputStream(file)))) {
            for (var e : java.util.List.of(java.util.Map.entry("store/h2.zip", zip.toByteArray()),
                    java.util.Map.entry("databases/db_x.sql", dump.getBytes(StandardCharsets.UTF_8)),
                    java.util.Map.entry(Manifest.NAME, manifest.getBytes(StandardCharsets.UTF_8)))) {
                TarArchiveEntry t = new TarArchiveEntry(e.getKey());
                t.setSize(e.getValue().length);
                out.putArchiveEntry(t);
                out.write(e.getValue());
                out.closeArchiveEntry();
            }
        }
        return file;
    }

    private static String sha(byte[] b) {
        return java.util.HexFormat.of().formatHex(Digests.sha256().digest(b));
    }

    @Test
    void theAppsDatabasesAreLoadedAfterTheStoreAndTheirDumpsStayWhenThatFails() throws IOException {
        Path target = dir.resolve("data");
        Restore.Restored done = Restore.run(withAppDatabase("ok.tar.gz"), target, null, (dumps, ids) -> {
            assertThat(ids).containsExactly("db_x");
            assertThat(target.resolve("slipway.mv.db")).as("the store is in place first").exists();
            return java.util.List.of(ids.getFirst() + ": loaded from " + Files.readString(dumps.resolve("db_x.sql")));
        });
        assertThat(done.databases()).containsExactly("db_x: loaded from CREATE TABLE notes (value TEXT);");
        assertThat(target.resolve(Restore.DUMPS)).as("loaded dumps are not kept").doesNotExist();

        Path again = dir.resolve("data-2");
        Files.move(target, again);
        assertThatThrownBy(() -> Restore.run(withAppDatabase("fails.tar.gz"), target, null, (dumps, ids) -> {
            throw new IOException("the database db_x is gone; set SLIPWAY_POSTGRES_ADMIN_URL for the restore to make it again");
        })).hasMessageContaining("SLIPWAY_POSTGRES_ADMIN_URL");
        assertThat(target.resolve("slipway.mv.db")).as("the restored store stays").exists();
        assertThat(target.resolve(Restore.DUMPS).resolve("db_x.sql")).as("the dump waits to be loaded by hand").exists();
        // into another path, the store is opened to move its builds' paths: a store copy that cannot be opened (only a
        // hand-made file has one, a backup's is checked by its digest) fails there, and leaves no data dir behind
        Path elsewhere = again.resolveSibling("data-3");
        assertThatThrownBy(() -> Restore.run(withAppDatabase("none.tar.gz"), elsewhere, null)).hasMessageContaining("slipway.mv.db");
        assertThat(elsewhere).doesNotExist();
    }

    @Test
    void aFileCutShortOrWithoutItsManifestIsRefused() throws IOException {
        refused(tar("nomanifest.tar.gz", Entry.file("store/h2.zip", "x")), "it has no manifest");
        Path notGzip = Files.writeString(dir.resolve("plain.txt"), "not a backup");
        refused(notGzip, "it cannot be read as a gzipped tar");
        refused(tar("badjson.tar.gz", Entry.file(Manifest.NAME, "{not json")), "its manifest is not valid JSON");
        refused(tar("missing.tar.gz", Entry.file(Manifest.NAME, """
                {"format":1,"store":"h2","schema":"117","created_at":"2026-11-26T10:00:00Z",
                 "entries":[{"name":"store/h2.zip","size":1,"sha256":"00"}]}""")), "store/h2.zip is missing");
        refused(tar("future.tar.gz", Entry.file(Manifest.NAME, """
                {"format":9,"store":"h2","schema":"117","created_at":"2026-11-26T10:00:00Z","entries":[]}""")),
                "its format 9 is not one this version reads");
    }
}
