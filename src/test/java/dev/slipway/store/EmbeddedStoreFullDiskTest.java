package dev.slipway.store;

import dev.slipway.core.MicrosClock;
import dev.slipway.testing.Await;
import dev.slipway.testing.TestStore;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The embedded store on a disk with not one byte left: a write fails and H2 closes the database. Once space is freed,
 * the store answers again without a restart: the pool drops the connections of the closed database, and new ones open
 * it again; nothing committed before is lost.
 */
class EmbeddedStoreFullDiskTest {
    @Test
    void theEmbeddedStoreClosedByAFullDiskOpensAgainOnceThereIsRoom() throws Exception {
        Path mount = Files.createTempDirectory("slipway-store-disk-");
        run("mount", "-t", "tmpfs", "-o", "size=96m,mode=0755", "tmpfs", mount.toString());
        List<String> away = new ArrayList<>();
        try (TestStore store = TestStore.create(Dialect.H2, mount); Database db = Database.open(store.jdbcUrl(), 4);
             StoreHealth health = new StoreHealth(db, MicrosClock.system(), (type, data) -> away.add(type))) {
            db.jdbi().useHandle(h -> h.execute("CREATE TABLE full_disk_notes (id INT PRIMARY KEY, note VARCHAR(4000))"));
            db.jdbi().useHandle(h -> h.execute("INSERT INTO full_disk_notes VALUES (0, 'before the disk filled')"));
            Path filler = store.dataDir().resolve("filler");
            fill(filler);

            RuntimeException failed = null;
            String note = "x".repeat(4000);
            for (int i = 1; i <= 100_000 && failed == null; i++) {
                int id = i;
                try {
                    db.jdbi().useHandle(h -> h.execute("INSERT INTO full_disk_notes VALUES (?, ?)", id, note));
                } catch (RuntimeException e) {
                    failed = e;
                }
            }
            assertThat(failed).as("a write on a full disk fails").isNotNull();
            assertThat(health.failed(failed)).as("and says the store is away: %s", failed).isTrue();
            assertThat(health.away()).isPresent();

            Files.delete(filler);
            Await.until(Duration.ofSeconds(30), "the store to answer again", () -> health.away().isEmpty());
            Await.until(Duration.ofSeconds(30), "the pool to hand out working connections", () -> {
                try {
                    return db.jdbi().withHandle(h -> h.createQuery("SELECT note FROM full_disk_notes WHERE id = 0")
                            .mapTo(String.class).one()).equals("before the disk filled");
                } catch (RuntimeException stillClosed) {
                    return false;
                }
            });
            db.jdbi().useHandle(h -> h.execute("INSERT INTO full_disk_notes VALUES (-1, 'after')"));
            assertThat(away).containsExactly("store.recovered");
        } finally {
            run("umount", "-l", mount.toString());
            Files.deleteIfExists(mount);
        }
    }

    private static void fill(Path file) throws IOException {
        byte[] chunk = new byte[1 << 20];
        try (OutputStream out = Files.newOutputStream(file)) {
            for (int size = chunk.length; size >= 1; size /= 2) {
                try {
                    while (true) out.write(chunk, 0, size);
                } catch (IOException full) {
                    // the next, smaller size takes what is left
                }
            }
        } catch (IOException closingOnAFullDisk) {
            // what was written stays
        }
    }

    private static void run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new AssertionError(String.join(" ", command) + " failed (this test makes a small filesystem of its own, "
                    + "and needs root for it): " + out);
        }
    }
}
