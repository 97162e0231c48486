package dev.slipway.build.docker;

import dev.slipway.logs.Level;
import dev.slipway.testing.RecordingLog;
import dev.slipway.testing.TestStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.assertj.core.api.Assertions.assertThat;

/** A project's layer cache is kept while it holds no more than its bound, and emptied whole beyond it. */
class LayerCacheTest {
    private Path dir;
    private Path storage;

    @BeforeEach
    void storage() throws IOException {
        dir = Files.createTempDirectory("slipway-layers-");
        storage = dir.resolve("buildah");
        // as buildah leaves it: nested layers, one folder without write permission
        Path layer = Files.createDirectories(storage.resolve("root/vfs/dir/0123/usr/bin"));
        Files.write(layer.resolve("tool"), new byte[600_000]);
        Files.write(Files.createDirectories(storage.resolve("root/vfs/dir/4567")).resolve("blob"), new byte[500_000]);
        Files.setPosixFilePermissions(layer, PosixFilePermissions.fromString("r-xr-xr-x"));
    }

    @AfterEach
    void clean() {
        TestStore.deleteTree(dir);
    }

    @Test
    void aCacheWithinItsBoundIsKept() {
        RecordingLog log = new RecordingLog();
        LayerCache.bound(storage, 1_100_000, log);
        assertThat(storage.resolve("root/vfs/dir/0123/usr/bin/tool")).exists();
        assertThat(log.entries()).isEmpty();
    }

    @Test
    void aCacheOverItsBoundIsEmptiedWholeAndTheLogSaysSo() {
        RecordingLog log = new RecordingLog();
        LayerCache.bound(storage, 1_000_000, log);
        assertThat(storage).doesNotExist();
        assertThat(log.entries()).containsExactly(new RecordingLog.Entry(Level.WARNING, "The project's layer cache held 1.1 MB, "
                + "more than its 1 MB (SLIPWAY_BUILD_CACHE_MB): emptied; the next build runs every step"));
    }

    @Test
    void noCacheIsKeptWhenItIsOff() {
        RecordingLog log = new RecordingLog();
        LayerCache.bound(storage, 0, log);
        assertThat(storage).doesNotExist();
        assertThat(log.messages()).containsExactly("The layer cache is off (SLIPWAY_BUILD_CACHE_MB=0): the next build runs every step");
    }
}
