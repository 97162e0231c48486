package dev.slipway.server;

import dev.slipway.config.ServerConfig;
import dev.slipway.store.Database;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The store, connected and migrated on a thread of its own while the ports are bound: the migrations of a new
 * data dir and the start of an edge process (a JVM of its own) take a second or more each, and neither needs the
 * other.
 */
final class StoreOpening implements AutoCloseable {
    private final CompletableFuture<Database> database = new CompletableFuture<>();
    private volatile boolean taken;

    private StoreOpening() {}

    static StoreOpening begin(ServerConfig config) {
        StoreOpening opening = new StoreOpening();
        Thread.ofVirtual().name("store-open").start(() -> {
            try {
                opening.database.complete(Database.open(Stores.storeUrl(config), config.store().poolSize()));
            } catch (Throwable e) {
                opening.database.completeExceptionally(e);
            }
        });
        return opening;
    }

    /** The open store, from now on the caller's to close; a failure to open it is thrown as {@link Database#open} threw it. */
    Database take() {
        try {
            Database opened = database.join();
            taken = true;
            return opened;
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) throw r;
            if (e.getCause() instanceof Error x) throw x;
            throw e;
        }
    }

    /** For a start that failed before it took the store: waits for the opening, so the data dir is free after it. */
    @Override
    public void close() {
        if (taken) return;
        try {
            database.join().close();
        } catch (CompletionException failedToOpen) {
            // nothing was opened
        }
    }
}
