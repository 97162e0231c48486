package dev.slipway.source;

import java.time.Instant;

/** An upload as the API shows it (the path on disk is the server's business). */
public record UploadView(String id, long sizeBytes, String sha256, Instant createdAt) {
    public static UploadView of(Upload u) {
        return new UploadView(u.id(), u.sizeBytes(), u.sha256(), u.createdAt());
    }
}
