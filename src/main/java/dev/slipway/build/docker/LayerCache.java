package dev.slipway.build.docker;

import dev.slipway.build.Trees;
import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Locale;

/** A project's buildah storage, kept between its builds so that an unchanged step is not run again. */
final class LayerCache {
    private LayerCache() {}

    /**
     * Empties the layer cache in {@code storage} when it holds more than {@code maxBytes}: the next build runs every
     * step. Whole, not layer by layer: an old build's layers and the base images' cannot be told apart from outside
     * buildah.
     */
    static void bound(Path storage, long maxBytes, LogSink log) {
        String held;
        try {
            long bytes = Trees.size(storage);
            if (bytes <= maxBytes) return;
            held = String.format(Locale.ROOT, "%.1f MB", bytes / 1e6);
        } catch (IOException | UncheckedIOException e) {
            held = "a size the server could not measure"; // not kept, then
        }
        Trees.delete(storage);
        if (maxBytes == 0) {
            log.log(Level.INFO, "The layer cache is off (SLIPWAY_BUILD_CACHE_MB=0): the next build runs every step");
        } else {
            log.log(Level.WARNING, "The project's layer cache held " + held + ", more than its " + maxBytes / 1_000_000
                    + " MB (SLIPWAY_BUILD_CACHE_MB): emptied; the next build runs every step");
        }
    }
}
