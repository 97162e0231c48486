package dev.slipway.auth;

/** A freshly created key: the only moment the plain secret exists outside the caller's hands. */
public record IssuedKey(ApiKey key, String secret) {
}
