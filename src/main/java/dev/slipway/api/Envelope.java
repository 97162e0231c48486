package dev.slipway.api;

/** {@code {"data": ...}} — every success response of the main API. */
public record Envelope<T>(T data) {
}
