package dev.slipway.ratelimit;

/** The outcome of one request against a quota, with what the X-RateLimit-* headers say. */
public record Decision(boolean allowed, int limit, long remaining, long resetEpochSeconds, long retryAfterSeconds) {
}
