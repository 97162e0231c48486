package dev.slipway.backup;

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

    @Test
    void aFileCutShortOrWithoutItsManifestIsRefused() throws IOException {
        refused(tar("nomanifest.tar.gz", Entry.file("store/h2.zip", "x")), "it has no manifest");
        Path notGzip = Files.writeString(dir.resolve("plain.txt"), "not a backup");
        refused(notGzip, "it cannot be read as a gzipped tar");
        refused(tar("badjson.tar.gz", Entry.file(Manifest.NAME, "{not json")), "its manifest is not valid JSON");
        refused(tar("missing.tar.gz", Entry.file(Manifest.NAME, """
                {"format":1,"store":"h2","schema":"117","created_at":"2026-11-26T10:00:00Z","with_key":false,
                 "entries":[{"name":"store/h2.zip","size":1,"sha256":"00"}]}""")), "store/h2.zip is missing");
        refused(tar("future.tar.gz", Entry.file(Manifest.NAME, """
                {"format":9,"store":"h2","schema":"117","created_at":"2026-11-26T10:00:00Z","with_key":false,"entries":[]}""")),
                "its format 9 is not one this version reads");
    }
}
