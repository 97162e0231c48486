package dev.slipway.source;

import dev.slipway.core.Ids;
import org.jdbi.v3.core.Jdbi;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;

/** Uploaded zips: the file under {@code <data dir>/uploads/<id>.zip} and its row in {@code uploads}. */
public final class UploadStore {
    private static final String DIR = "uploads";

    private final Jdbi jdbi;
    private final Clock clock;
    private final Ids ids;
    private final Path dataDir;

    public UploadStore(Jdbi jdbi, Clock clock, Path dataDir) {
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

    /** Moves a received, checked zip into place and records it; the received file is gone afterwards. */
    public Upload save(String accountId, Path received, long sizeBytes, String sha256) {
        String id = ids.next("upl");
        String relative = DIR + "/" + id + ".zip";
        Path target = dataDir.resolve(relative);
        Instant now = clock.instant();
        try {
            Files.move(received, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot store upload " + id, e);
        }
        try {
            jdbi.useHandle(h -> h.createUpdate("""
                            INSERT INTO uploads (id, account_id, size_bytes, sha256, path, created_at)
                            VALUES (:id, :account, :size, :sha, :path, :at)""")
                    .bind("id", id).bind("account", accountId).bind("size", sizeBytes).bind("sha", sha256)
                    .bind("path", relative).bind("at", now).execute());
        } catch (RuntimeException e) {
            try {
                Files.deleteIfExists(target);
            } catch (IOException ignored) {
                // the row is what makes an upload exist; a stray file is harmless
            }
            throw e;
        }
        return new Upload(id, accountId, sizeBytes, sha256, target, now);
    }

    public Optional<Upload> find(String id) {
        return jdbi.withHandle(h -> h.createQuery("SELECT * FROM uploads WHERE id = :id").bind("id", id)
                .map((rs, ctx) -> new Upload(rs.getString("id"), rs.getString("account_id"), rs.getLong("size_bytes"),
                        rs.getString("sha256"), dataDir.resolve(rs.getString("path")),
                        rs.getTimestamp("created_at").toInstant()))
                .findOne());
    }
}
