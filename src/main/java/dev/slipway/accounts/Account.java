package dev.slipway.accounts;

import java.time.Instant;

/** A customer account; {@code rateLimitOverride} replaces the tier's per-minute limit when set. */
public record Account(String id, String name, Tier tier, Integer rateLimitOverride, Instant createdAt) {
    public int requestsPerMinute() {
        return rateLimitOverride != null ? rateLimitOverride : tier.requestsPerMinute();
    }
}
