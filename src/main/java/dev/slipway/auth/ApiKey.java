package dev.slipway.auth;

import java.time.Instant;

/** What is stored of an API key: never the key itself, only its hash and a display prefix. */
public record ApiKey(String id, String accountId, String name, String prefix,
                     Instant createdAt, Instant lastUsedAt, Instant revokedAt) {
}
