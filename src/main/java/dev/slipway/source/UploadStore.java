package dev.slipway.source;

import dev.slipway.accounts.AccountLock;
import dev.slipway.accounts.Tier;
import dev.slipway.core.Ids;
import java.util.Arrays;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Uploaded zips: the file under {@code <data dir>/uploads/<id>.zip} and its row in {@code uploads}. */
public final class UploadStore {
    private static final String DIR = "uploads";

    private final Jdbi jdbi;
    private final Clock clock;
    private final Ids ids;
    private final Path dataDir;

    /**
     * @param pendingRuns the stored states of a deployment that has yet to read its upload, and of a migration
     *                    that has yet to finish: such runs keep their upload from the sweep
     */
    public record PendingRuns(List<String> deployments, List<String> migrations) {}

    private final PendingRuns pending;

    public UploadStore(Jdbi jdbi, Clock clock, Path dataDir, PendingRuns pending) {
        this.pending = pending;
        this.jdbi = jdbi;
        this.clock = clock;
        this.ids = new Ids(clock);
        this.dataDir = dataDir.toAbsolutePath().normalize();
    }

    /** A fresh file to receive an upload into, on the same file system as the stored zips. */
    Path incomingFile() {
        try {
            Path dir = Files.createDirectories(dataDir.resolve(DIR));
            return Files.createTempFile(dir, ".incoming-", ".part");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a file under " + dataDir.resolve(DIR), e);
        }
    }

    /**
     * Records a received, checked zip and moves it into place, if the account's uploads stay within
     * {@code quotaBytes} with it; else empty, and the bytes it keeps now. The account's row is locked while it
     * counts, so that uploads received at the same time are counted one after the other (each was checked
     * against what was kept when it started, and all of them could pass).
     */
    public Saved save(String accountId, Path received, long sizeBytes, String sha256, long quotaBytes) {
        String id = ids.next("upl");
        String relative = DIR + "/" + id + ".zip";
        Path target = dataDir.resolve(relative);
        Instant now = clock.instant();
        return jdbi.inTransaction(h -> {
            AccountLock.hold(h, accountId);
            long kept = bytesKept(h, accountId);
            if (kept + sizeBytes > quotaBytes) return new Saved(Optional.empty(), kept);
            h.createUpdate("""
                            INSERT INTO uploads (id, account_id, size_bytes, sha256, path, created_at)
                            VALUES (:id, :account, :size, :sha, :path, :at)""")
                    .bind("id", id).bind("account", accountId).bind("size", sizeBytes).bind("sha", sha256)
                    .bind("path", relative).bind("at", now).execute();
            // in the transaction: a file that cannot be moved leaves no row (an upload without its file)
            try {
                Files.move(received, target, StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot store upload " + id, e);
            }
            return new Saved(Optional.of(new Upload(id, accountId, sizeBytes, sha256, target, now)), kept);
        });
    }

    /** What {@link #save} did: the upload, or empty when it would have gone past the quota; and the bytes kept before it. */
    public record Saved(Optional<Upload> upload, long keptBefore) {}

    /** Bytes of uploads the account keeps now (its quota's use). */
    public long bytesKept(String accountId) {
        return jdbi.withHandle(h -> bytesKept(h, accountId));
    }

    private static long bytesKept(Handle h, String accountId) {
        return h.createQuery("SELECT COALESCE(SUM(size_bytes), 0) FROM uploads WHERE account_id = :a")
                .bind("a", accountId).mapTo(Long.class).one();
    }

    /**
     * Deletes the uploads older than their account's tier keeps them ({@link Tier#uploadDays()}) that no run
     * still needs: a deployment waiting to build, or a migration not yet finished. Returns how many went.
     */
    public int sweep() {
        Instant now = clock.instant();
        record Old(String id, String path, Instant createdAt, String tier) {}
        List<Old> old = jdbi.withHandle(h -> h.createQuery("""
                        SELECT u.id, u.path, u.created_at, a.tier FROM uploads u JOIN accounts a ON a.id = u.account_id
                        WHERE u.created_at < :oldest
                          AND NOT EXISTS (SELECT 1 FROM deployments d WHERE d.upload_id = u.id AND d.status IN (<deployments>))
                          AND NOT EXISTS (SELECT 1 FROM migrations m WHERE m.upload_id = u.id AND m.status IN (<migrations>))""")
                .bindList("deployments", pending.deployments()).bindList("migrations", pending.migrations())
                .bind("oldest", now.minus(Duration.ofDays(Arrays.stream(Tier.values()).mapToInt(Tier::uploadDays).min().orElseThrow())))
                .map((rs, ctx) -> new Old(rs.getString(1), rs.getString(2), rs.getTimestamp(3).toInstant(), rs.getString(4)))
                .list());
        int deleted = 0;
        for (Old u : old) {
            if (u.createdAt().isAfter(now.minus(Duration.ofDays(Tier.parse(u.tier()).uploadDays())))) continue;
            // the row first: an upload without its row does not exist; a file without a row is only disk
            int gone = jdbi.withHandle(h -> h.createUpdate("DELETE FROM uploads WHERE id = :id").bind("id", u.id()).execute());
            if (gone == 0) continue;
            try {
                Files.deleteIfExists(dataDir.resolve(u.path()));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot delete upload " + u.id(), e);
            }
            deleted++;
        }
        return deleted;
    }

    /**
     * Deletes the uploads of a project being deleted: those its deployments or migrations were made from and no other
     * project's were. Returns how many went.
     */
    public int deleteUsedOnlyBy(String projectId) {
        List<Upload> used = jdbi.withHandle(h -> h.createQuery("""
                        SELECT u.id FROM uploads u
                        WHERE (u.id IN (SELECT upload_id FROM deployments WHERE project_id = :p)
                               OR u.id IN (SELECT upload_id FROM migrations WHERE project_id = :p))
                          AND NOT EXISTS (SELECT 1 FROM deployments d WHERE d.upload_id = u.id AND d.project_id <> :p)
                          AND NOT EXISTS (SELECT 1 FROM migrations m WHERE m.upload_id = u.id AND m.project_id <> :p)""")
                .bind("p", projectId).mapTo(String.class).list()).stream().flatMap(id -> find(id).stream()).toList();
        for (Upload u : used) {
            // the file first: nothing reads a deleted project's uploads, and a crash between leaves a row to retry
            try {
                Files.deleteIfExists(u.path());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot delete upload " + u.id(), e);
            }
            jdbi.useHandle(h -> h.createUpdate("DELETE FROM uploads WHERE id = :id").bind("id", u.id()).execute());
        }
        return used.size();
    }

    public Optional<Upload> find(String id) {
        return jdbi.withHandle(h -> h.createQuery("SELECT * FROM uploads WHERE id = :id").bind("id", id)
                .map((rs, ctx) -> new Upload(rs.getString("id"), rs.getString("account_id"), rs.getLong("size_bytes"),
                        rs.getString("sha256"), dataDir.resolve(rs.getString("path")),
                        rs.getTimestamp("created_at").toInstant()))
                .findOne());
    }
}
