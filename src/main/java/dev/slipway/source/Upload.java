package dev.slipway.source;

import java.nio.file.Path;
import java.time.Instant;

/**
 * An uploaded zip, kept for a migration to use.
 *
 * @param path absolute path of the zip under {@code <data dir>/uploads}
 */
public record Upload(String id, String accountId, long sizeBytes, String sha256, Path path, Instant createdAt) {}
