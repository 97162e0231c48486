package dev.slipway.disk;

import dev.slipway.api.ApiException;
import io.javalin.http.Handler;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * The free space of the data dir's disk, where the store, the artifacts, the build caches and the uploads are. Work
 * that writes (a build, an upload, a deploy) asks first; below the reserve it is refused before anything is made,
 * once what can go (build caches) went.
 */
public final class DiskSpace {
    /** Below the reserve: the disk, what is free, what is kept. */
    public record Shortage(Path disk, long free, long reserve) {
        public String describe() {
            return "the disk of " + disk + " has " + human(free) + " free, below the " + human(reserve)
                    + " kept for the store (SLIPWAY_DISK_RESERVE)";
        }
    }

    private final Path dataDir;
    private final DiskSettings settings;
    /** Frees what can go (build caches); the bytes it freed. */
    private final LongSupplier evict;

    public DiskSpace(Path dataDir, DiskSettings settings, LongSupplier evict) {
        this.dataDir = dataDir;
        this.settings = settings;
        this.evict = evict;
    }

    /** Below the reserve now; empty when there is room, or when the check is off. */
    public Optional<Shortage> shortage() {
        try {
            FileStore store = Files.getFileStore(Files.exists(dataDir) ? dataDir : dataDir.toAbsolutePath().getRoot());
            long reserve = settings.reserveOf(store.getTotalSpace());
            long free = store.getUsableSpace();
            return reserve > 0 && free < reserve ? Optional.of(new Shortage(dataDir, free, reserve)) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty(); // a disk that cannot be asked is not taken for a full one; its writes say why
        }
    }

    /**
     * Before work that writes: evicts the build caches when below the reserve, then refuses with 507 when still below.
     *
     * @throws ApiException 507 {@code insufficient_storage}, naming the disk and what is free
     */
    public void requireRoom() {
        Optional<Shortage> short1 = shortage();
        if (short1.isEmpty()) return;
        evict.getAsLong();
        Optional<Shortage> still = shortage();
        if (still.isEmpty()) return;
        throw new ApiException(507, "insufficient_storage", "Not enough disk space: " + still.get().describe()
                + ". Nothing was created; free space on that disk and retry", null, Map.of());
    }

    /** {@code handler}, once there is room ({@link #requireRoom}); outside any idempotency wrapper, so a 507 is not replayed. */
    public Handler guard(Handler handler) {
        return ctx -> {
            requireRoom();
            handler.handle(ctx);
        };
    }

    static String human(long bytes) {
        if (bytes >= 1L << 30) return String.format(java.util.Locale.ROOT, "%.1f GiB", bytes / (double) (1L << 30));
        if (bytes >= 1L << 20) return String.format(java.util.Locale.ROOT, "%.1f MiB", bytes / (double) (1L << 20));
        if (bytes >= 1L << 10) return String.format(java.util.Locale.ROOT, "%.1f KiB", bytes / (double) (1L << 10));
        return bytes + " bytes";
    }
}
