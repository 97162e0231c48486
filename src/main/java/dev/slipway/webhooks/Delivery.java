package dev.slipway.webhooks;

import java.time.Instant;

/**
 * One event on its way to one endpoint. {@code messageId} is the {@code webhook-id} header, the
 * same on every attempt and on a redelivery.
 */
public record Delivery(String id, String endpointId, String messageId, String eventType, String payload, DeliveryState state,
                       int attempts, Instant nextAttemptAt, Instant lastAttemptAt, Integer lastStatusCode,
                       String lastError, Instant createdAt, Instant deliveredAt) {
}
