package dev.slipway.build.docker;

import dev.slipway.logs.LogSink;
import dev.slipway.testing.TestStore;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class StorageDriverTest {
    @Test
    void overlayFromTheKernelThatMountsItInAUserNamespace() {
        assertThat(StorageDriver.forRelease("6.1.0-27-amd64")).isEqualTo(StorageDriver.OVERLAY);
        assertThat(StorageDriver.forRelease("5.11.0")).isEqualTo(StorageDriver.OVERLAY);
        assertThat(StorageDriver.forRelease("5.10.0-28-amd64")).isEqualTo(StorageDriver.VFS);
        assertThat(StorageDriver.forRelease("4.19.0")).isEqualTo(StorageDriver.VFS);
        assertThat(StorageDriver.forRelease("garbage")).isEqualTo(StorageDriver.VFS);
    }

    @Test
    void theOtherDriversStoreIsEmptiedOnceAndTheLogSaysSo() throws Exception {
        Path storage = Files.createTempDirectory("slipway-storage-");
        try {
            Files.createDirectories(storage.resolve("root/vfs/dir/0123"));
            Files.createDirectories(storage.resolve("run"));
            Files.createDirectories(storage.resolve("bases")).resolve("sha256-ab").toFile().createNewFile();
            List<String> said = new ArrayList<>();
            LogSink log = (level, message) -> said.add(message);

            StorageDriver.OVERLAY.clearOthers(storage, log);

            assertThat(storage.resolve("root")).doesNotExist();
            assertThat(storage.resolve("bases")).doesNotExist();
            assertThat(said).singleElement().asString().contains("vfs storage; this server uses overlay: emptied");
            assertThat(StorageDriver.OVERLAY.options(storage)).containsSubsequence("--root", storage.resolve("overlay/root").toString(),
                    "--storage-driver", "overlay");
            StorageDriver.OVERLAY.clearOthers(storage, log);
            assertThat(said).hasSize(1);
        } finally {
            TestStore.deleteTree(storage);
        }
    }
}
