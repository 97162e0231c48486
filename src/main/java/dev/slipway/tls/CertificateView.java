package dev.slipway.tls;

import java.time.Instant;

/**
 * A domain's certificate as the API, the dashboard and the webhook events show it; never its key.
 *
 * @param expiresAt the served certificate's expiry; null until one is issued
 * @param lastError why the last order failed; null after a success
 */
public record CertificateView(String domain, String status, Instant expiresAt, String lastError, Instant nextAttemptAt) {}
