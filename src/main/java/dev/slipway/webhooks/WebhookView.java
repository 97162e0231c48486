package dev.slipway.webhooks;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.time.Instant;
import java.util.List;

/** Webhook endpoints and deliveries as the API shows them. An endpoint's secret appears only in {@link Created} and {@link Rotated}. */
@JsonInclude(JsonInclude.Include.ALWAYS)
public record WebhookView(String id, String url, String description, List<String> events, boolean enabled,
                          String disabledReason, Instant failingSince, Instant previousSecretExpiresAt,
                          Instant createdAt, Instant updatedAt, String format) {
    public static WebhookView of(Endpoint e, Instant now) {
        Instant overlap = e.previousExpiresAt() != null && e.previousExpiresAt().isAfter(now) ? e.previousExpiresAt() : null;
        return new WebhookView(e.id(), e.url(), e.description(), e.events(), e.enabled(), e.disabledReason(),
                e.failingSince(), overlap, e.createdAt(), e.updatedAt(), e.format());
    }

    /** The answer to the creation: the endpoint and its signing secret, shown this once. */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record Created(String id, String url, String description, List<String> events, boolean enabled,
                          String disabledReason, Instant failingSince, Instant previousSecretExpiresAt,
                          Instant createdAt, Instant updatedAt, String format, String secret) {
        static Created of(Endpoint e, String secret) {
            return new Created(e.id(), e.url(), e.description(), e.events(), e.enabled(), null, null, null,
                    e.createdAt(), e.updatedAt(), e.format(), secret);
        }
    }

    /** The answer to a rotation: the new secret, shown this once; the old one signs too until {@code previous_secret_expires_at}. */
    public record Rotated(String id, String secret, Instant previousSecretExpiresAt) {}

    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record DeliveryView(String id, String webhookId, String endpointId, String eventType, String status,
                               int attempts, Integer lastStatusCode, String lastError, Instant nextAttemptAt,
                               Instant lastAttemptAt, Instant createdAt, Instant deliveredAt) {
        public static DeliveryView of(Delivery d) {
            return new DeliveryView(d.id(), d.messageId(), d.endpointId(), d.eventType(), d.state().label(), d.attempts(),
                    d.lastStatusCode(), d.lastError(), d.nextAttemptAt(), d.lastAttemptAt(), d.createdAt(), d.deliveredAt());
        }
    }
}
