package dev.slipway.store;

import org.jdbi.v3.core.Jdbi;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The newest rows each owner keeps in a table ordered by {@code seq} (a log's lines): this server counts an owner's rows
 * once in the store, then as it adds them, and deletes the oldest once there are a tenth more than it keeps. What is
 * followed by seq only skips what went.
 */
public final class NewestRows {
    private final Jdbi jdbi;
    private final String table;
    private final String owner;
    private final int keep;
    private final ConcurrentHashMap<String, AtomicLong> held = new ConcurrentHashMap<>();

    /** {@code table} and {@code ownerColumn} are constants of the caller, never input. */
    public NewestRows(Jdbi jdbi, String table, String ownerColumn, int keep) {
        this.jdbi = jdbi;
        this.table = table;
        this.owner = ownerColumn;
        this.keep = keep;
    }

    /** {@code added} rows of {@code ownerId} were just stored. */
    public void added(String ownerId, long added) {
        AtomicLong count = held.get(ownerId);
        if (count == null) {
            long counted = jdbi.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM " + table + " WHERE " + owner + " = :o")
                    .bind("o", ownerId).mapTo(Long.class).one());
            count = held.computeIfAbsent(ownerId, o -> new AtomicLong(counted));
        } else {
            count.addAndGet(added);
        }
        if (count.get() <= keep + keep / 10) return;
        int deleted = jdbi.withHandle(h -> h.createUpdate("DELETE FROM " + table + " WHERE " + owner + " = :o AND seq <= "
                        + "(SELECT seq FROM " + table + " WHERE " + owner + " = :o ORDER BY seq DESC LIMIT 1 OFFSET :keep)")
                .bind("o", ownerId).bind("keep", keep).execute());
        count.addAndGet(-deleted);
    }
}
