package dev.slipway.webhooks;

import java.time.Instant;
import java.util.List;

/**
 * A webhook endpoint as stored; the secrets are sealed ({@code v1:…}), never plain.
 *
 * @param format how its deliveries are written ({@link ChatFormat}): the signed event, or a Slack or Discord message
 */
public record Endpoint(String id, String accountId, String url, String description, List<String> events,
                       boolean enabled, String disabledReason, String secretEnc, String previousSecretEnc,
                       Instant previousExpiresAt, Instant failingSince, Instant createdAt, Instant updatedAt, String format) {
    public Endpoint {
        if (format == null) format = ChatFormat.SLIPWAY;
    }

    public Endpoint(String id, String accountId, String url, String description, List<String> events,
                    boolean enabled, String disabledReason, String secretEnc, String previousSecretEnc,
                    Instant previousExpiresAt, Instant failingSince, Instant createdAt, Instant updatedAt) {
        this(id, accountId, url, description, events, enabled, disabledReason, secretEnc, previousSecretEnc, previousExpiresAt,
                failingSince, createdAt, updatedAt, ChatFormat.SLIPWAY);
    }

    /** The same endpoint written in {@code f}. */
    public Endpoint withFormat(String f) {
        return new Endpoint(id, accountId, url, description, events, enabled, disabledReason, secretEnc, previousSecretEnc,
                previousExpiresAt, failingSince, createdAt, updatedAt, f);
    }
}
