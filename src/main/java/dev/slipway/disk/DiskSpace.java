package dev.slipway.disk;

import dev.slipway.api.ApiException;
import dev.slipway.core.Sizes;
import io.javalin.http.Handler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiPredicate;
import java.util.function.LongSupplier;

/**
 * The free space of the data dir's disk, where the store, the artifacts, the build caches and the uploads are. Work
 * that writes (a build, an upload, a deploy) asks first; below the reserve it is refused before anything is made,
 * once what can go (build caches) went. Passing the reserve, either way, is logged once and sent to the operator
 * ({@code disk.low}, {@code disk.recovered}).
 */
public final class DiskSpace {
    private static final Logger LOG = LoggerFactory.getLogger(DiskSpace.class);

    /** What the disk has now: free bytes, and the reserve kept (0: the check is off). */
    public record Usage(long free, long reserve) {
        boolean low() {
            return reserve > 0 && free < reserve;
        }
    }

    /** Below the reserve: the disk, what is free, what is kept. */
    public record Shortage(Path disk, long free, long reserve) {
        public String describe() {
            return "the disk of " + disk + " has " + Sizes.human(free) + " free, below the " + Sizes.human(reserve)
                    + " kept for the store (SLIPWAY_DISK_RESERVE)";
        }
    }

    private final Path dataDir;
    private final DiskSettings settings;
    /** Frees what can go (build caches); the bytes it freed. */
    private final LongSupplier evict;
    private final BiPredicate<String, Object> events;
    private boolean low;

    /** @param events the operator's events ({@code disk.low}, {@code disk.recovered}); false: not sent, tried again later */
    public DiskSpace(Path dataDir, DiskSettings settings, LongSupplier evict, BiPredicate<String, Object> events) {
        this.dataDir = dataDir;
        this.settings = settings;
        this.evict = evict;
        this.events = events;
    }

    /** Free space and reserve now; empty when the disk cannot be asked. */
    public Optional<Usage> usage() {
        try {
            FileStore store = Files.getFileStore(Files.exists(dataDir) ? dataDir : dataDir.toAbsolutePath().getRoot());
            return Optional.of(new Usage(store.getUsableSpace(), settings.reserveOf(store.getTotalSpace())));
        } catch (IOException e) {
            return Optional.empty(); // a disk that cannot be asked is not taken for a full one; its writes say why
        }
    }

    /** Below the reserve now; empty when there is room, or when the check is off. */
    public Optional<Shortage> shortage() {
        Optional<Usage> now = usage();
        passed(now);
        return now.filter(Usage::low).map(u -> new Shortage(dataDir, u.free(), u.reserve()));
    }

    /** Tells a passing of the reserve, either way, once. */
    private void passed(Optional<Usage> now) {
        boolean isLow = now.filter(Usage::low).isPresent();
        boolean was;
        synchronized (this) {
            was = low;
            low = isLow;
        }
        if (was == isLow) return;
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("disk", dataDir.toString());
        now.ifPresent(u -> {
            data.put("free_bytes", u.free());
            data.put("reserve_bytes", u.reserve());
        });
        if (isLow) LOG.warn("new work is refused: {}", new Shortage(dataDir, now.get().free(), now.get().reserve()).describe());
        else LOG.info("the disk of {} has room again: new work is taken", dataDir);
        if (!events.test(isLow ? "disk.low" : "disk.recovered", data)) {
            synchronized (this) {
                low = was; // the store could not take the event (a full disk takes it away too): the next check sends it
            }
        }
    }

    /**
     * Before work that writes: evicts the build caches and the builds no deployment needs when below the reserve, then
     * refuses with 507 when still below.
     *
     * @throws ApiException 507 {@code insufficient_storage}, naming the disk and what is free
     */
    public void requireRoom() {
        // the caches go before the reserve's passing is told: what they free may be enough
        if (usage().filter(Usage::low).isPresent()) {
            long freed = evict.getAsLong();
            if (freed > 0) LOG.info("the disk is short of space: {} of build caches and unused builds deleted", Sizes.human(freed));
        }
        Optional<Shortage> still = shortage();
        if (still.isPresent()) throw refusal(still.get());
    }

    /** 507 {@code insufficient_storage}, naming the disk and what is free. */
    public static ApiException refusal(Shortage shortage) {
        return new ApiException(507, "insufficient_storage", "Not enough disk space: " + shortage.describe()
                + ". Nothing was created; free space on that disk and retry", null, Map.of());
    }

    /** {@code handler}, once there is room ({@link #requireRoom}); outside any idempotency wrapper, so a 507 is not replayed. */
    public Handler guard(Handler handler) {
        return ctx -> {
            requireRoom();
            handler.handle(ctx);
        };
    }
}
