package dev.slipway.store;

import dev.slipway.core.MicrosClock;
import dev.slipway.testing.Await;
import dev.slipway.testing.SmallDisk;
import dev.slipway.testing.TestStore;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The embedded store on a disk with not one byte left: a write fails and H2 closes the database. Once space is freed,
 * the store answers again without a restart: the pool drops the connections of the closed database, and new ones open
 * it again; nothing committed before is lost.
 */
class EmbeddedStoreFullDiskTest {
    @Test
    void theEmbeddedStoreClosedByAFullDiskOpensAgainOnceThereIsRoom() throws Exception {
        List<String> away = new java.util.concurrent.CopyOnWriteArrayList<>(); // told from the health's own threads
        try (SmallDisk disk = SmallDisk.mount(96); TestStore store = TestStore.create(Dialect.H2, disk.path());
             Database db = Database.open(store.jdbcUrl(), 4);
             StoreHealth health = new StoreHealth(db, MicrosClock.system(), (type, data) -> away.add(type))) {
            db.jdbi().useHandle(h -> h.execute("CREATE TABLE full_disk_notes (id INT PRIMARY KEY, note VARCHAR(4000))"));
            db.jdbi().useHandle(h -> h.execute("INSERT INTO full_disk_notes VALUES (0, 'before the disk filled')"));
            Path filler = store.dataDir().resolve("filler");
            SmallDisk.fill(filler, 0);

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
            Await.until(Duration.ofSeconds(30), "the store.unavailable event", () -> away.contains("store.unavailable"));

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
            assertThat(away).containsExactly("store.unavailable", "store.recovered");
        }
    }
}
