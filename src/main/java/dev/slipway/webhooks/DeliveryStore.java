package dev.slipway.webhooks;

import dev.slipway.store.Keyset;
import dev.slipway.store.Page;
import dev.slipway.store.PageRequest;
import dev.slipway.store.StateMachine;
import dev.slipway.core.Ids;
import java.time.Duration;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.mapper.RowMapper;

import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The outbox of webhook deliveries: written with the state change, then attempted until one succeeds or they give up. */
public final class DeliveryStore {
    private static final StateMachine<DeliveryState>.Stored DELIVERIES = DeliveryState.MACHINE.stored("webhook_deliveries", "state");
    /** How long finished deliveries stay listed (and redeliverable). */
    public static final Duration RETENTION = Duration.ofDays(30);
    private static final int MAX_ERROR = 1000;
    static final RowMapper<Delivery> MAPPER = (rs, ctx) -> new Delivery(rs.getString("id"), rs.getString("endpoint_id"),
            rs.getString("message_id"), rs.getString("event_type"), rs.getString("payload"), DeliveryState.parse(rs.getString("state")),
            rs.getInt("attempts"), instant(rs.getTimestamp("next_attempt_at")), instant(rs.getTimestamp("last_attempt_at")),
            (Integer) rs.getObject("last_status_code"), rs.getString("last_error"), instant(rs.getTimestamp("created_at")),
            instant(rs.getTimestamp("delivered_at")));

    private final Jdbi jdbi;
    private final Clock clock;
    private final Ids ids;

    public DeliveryStore(Jdbi jdbi, Clock clock) {
        this.jdbi = jdbi;
        this.clock = clock;
        this.ids = new Ids(clock);
    }

    /** Queues one event for one endpoint inside the caller's transaction; due at once. */
    public Delivery enqueue(Handle h, String endpointId, String messageId, String type, String payload) {
        Instant now = clock.instant();
        Delivery d = new Delivery(ids.next("whd"), endpointId, messageId, type, payload, DeliveryState.PENDING, 0, now,
                null, null, null, now, null);
        h.createUpdate("""
                        INSERT INTO webhook_deliveries (id, endpoint_id, message_id, event_type, payload, state, attempts,
                            next_attempt_at, created_at)
                        VALUES (:id, :endpoint, :message, :type, :payload, :state, 0, :at, :at)""")
                .bind("state", DeliveryState.PENDING.label()).bind("id", d.id()).bind("endpoint", endpointId).bind("message", messageId).bind("type", type)
                .bind("payload", payload).bind("at", now).execute();
        return d;
    }

    public Delivery enqueue(String endpointId, String messageId, String type, String payload) {
        return jdbi.inTransaction(h -> enqueue(h, endpointId, messageId, type, payload));
    }

    public Optional<Delivery> find(String id) {
        return jdbi.withHandle(h -> h.createQuery("SELECT * FROM webhook_deliveries WHERE id = :id").bind("id", id)
                .map(MAPPER).findOne());
    }

    public Page<Delivery> page(String endpointId, PageRequest request) {
        return jdbi.withHandle(h -> Keyset.page(h, "webhook_deliveries", List.of("endpoint_id = :endpoint"),
                Map.of("endpoint", endpointId), request, MAPPER, Delivery::createdAt, Delivery::id));
    }

    /** The endpoint's oldest delivery that is due now. */
    public Optional<Delivery> nextDue(String endpointId) {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT * FROM webhook_deliveries
                        WHERE endpoint_id = :e AND state = :pending AND next_attempt_at <= :now
                        ORDER BY seq LIMIT 1""")
                .bind("pending", DeliveryState.PENDING.label()).bind("e", endpointId).bind("now", clock.instant()).map(MAPPER).findOne());
    }

    public void succeeded(String id, Integer status) {
        Instant now = clock.instant();
        jdbi.useHandle(h -> DELIVERIES.moveTo(h, DeliveryState.SUCCEEDED, """
                        attempts = attempts + 1, last_status_code = :status, last_error = NULL, last_attempt_at = :now,
                        delivered_at = :now, next_attempt_at = NULL""", "id = :id")
                .bind("status", status).bind("now", now).bind("id", id).execute());
    }

    /** A failed attempt: retried at {@code retryAt}, or failed for good when that is null. */
    public void attemptFailed(String id, Integer status, String error, Instant retryAt) {
        jdbi.useHandle(h -> attemptFailed(h, id, status, error, retryAt));
    }

    /** As above, inside the caller's transaction. */
    public void attemptFailed(Handle h, String id, Integer status, String error, Instant retryAt) {
        DELIVERIES.moveTo(h, retryAt == null ? DeliveryState.FAILED : DeliveryState.PENDING, """
                        attempts = attempts + 1, last_status_code = :status, last_error = :error, last_attempt_at = :now,
                        next_attempt_at = :next""", "id = :id")
                .bind("status", status)
                .bind("error", clip(error)).bind("now", clock.instant()).bind("next", retryAt).bind("id", id).execute();
    }

    /** Gives up the endpoint's waiting deliveries (it was disabled); a redelivery can send them later. */
    static void failPending(Handle h, String endpointId, String reason) {
        DELIVERIES.moveTo(h, DeliveryState.FAILED,
                        "next_attempt_at = NULL, last_error = LEFT(COALESCE(last_error || '; ', '') || :reason, 1000)",
                        "endpoint_id = :e")
                .bind("reason", reason).bind("e", endpointId).execute();
    }

    /** Deletes finished deliveries older than {@code retention}, and any whose endpoint is gone. */
    public int sweep(Duration retention) {
        Instant before = clock.instant().minus(retention);
        return jdbi.withHandle(h -> h.createUpdate("""
                        DELETE FROM webhook_deliveries
                        WHERE (created_at < :before AND state <> :pending)
                           OR NOT EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.id = webhook_deliveries.endpoint_id)""")
                .bind("pending", DeliveryState.PENDING.label()).bind("before", before).execute());
    }

    private static String clip(String error) {
        if (error == null) return null;
        return error.length() > MAX_ERROR - 200 ? error.substring(0, MAX_ERROR - 201) + "…" : error;
    }

    private static Instant instant(Timestamp ts) {
        return ts == null ? null : ts.toInstant();
    }
}
