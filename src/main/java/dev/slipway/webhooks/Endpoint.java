package dev.slipway.webhooks;

import java.time.Instant;
import java.util.List;

/** A webhook endpoint as stored; the secrets are sealed ({@code v1:…}), never plain. */
public record Endpoint(String id, String accountId, String url, String description, List<String> events,
                       boolean enabled, String disabledReason, String secretEnc, String previousSecretEnc,
                       Instant previousExpiresAt, Instant failingSince, Instant createdAt, Instant updatedAt) {
}
