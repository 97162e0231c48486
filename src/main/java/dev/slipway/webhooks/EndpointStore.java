package dev.slipway.webhooks;

import dev.slipway.store.Keyset;
import dev.slipway.store.Page;
import dev.slipway.store.PageRequest;
import java.util.function.Consumer;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.mapper.RowMapper;

import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Webhook endpoints. An endpoint's deliveries are sent by whichever server holds its lease (a
 * conditional UPDATE, like the job leases), so one endpoint has at most one delivery in flight across
 * all servers, and an endpoint whose server died is taken over when the lease expires.
 */
public final class EndpointStore {
    static final RowMapper<Endpoint> MAPPER = (rs, ctx) -> new Endpoint(rs.getString("id"), rs.getString("account_id"),
            rs.getString("url"), rs.getString("description"), events(rs.getString("events")), rs.getBoolean("enabled"),
            rs.getString("disabled_reason"), rs.getString("secret_enc"), rs.getString("previous_secret_enc"),
            instant(rs.getTimestamp("previous_expires_at")), instant(rs.getTimestamp("failing_since")),
            instant(rs.getTimestamp("created_at")), instant(rs.getTimestamp("updated_at")), rs.getString("format"));

    private final Jdbi jdbi;
    private final Clock clock;

    public EndpointStore(Jdbi jdbi, Clock clock) {
        this.jdbi = jdbi;
        this.clock = clock;
    }

    public void insert(Endpoint e) {
        jdbi.useHandle(h -> h.createUpdate("""
                        INSERT INTO webhook_endpoints (id, account_id, url, description, events, enabled, secret_enc,
                            created_at, updated_at, format)
                        VALUES (:id, :account, :url, :description, :events, TRUE, :secret, :at, :at, :format)""")
                .bind("format", e.format())
                .bind("id", e.id()).bind("account", e.accountId()).bind("url", e.url())
                .bind("description", e.description()).bind("events", String.join(",", e.events()))
                .bind("secret", e.secretEnc()).bind("at", e.createdAt()).execute());
    }

    public Optional<Endpoint> find(String id) {
        return jdbi.withHandle(h -> h.createQuery("SELECT * FROM webhook_endpoints WHERE id = :id").bind("id", id)
                .map(MAPPER).findOne());
    }

    public Page<Endpoint> page(String accountId, PageRequest request) {
        return jdbi.withHandle(h -> Keyset.page(h, "webhook_endpoints", List.of("account_id = :account"),
                Map.of("account", accountId), request, MAPPER, Endpoint::createdAt, Endpoint::id));
    }

    /** The account's enabled endpoints, as the caller's transaction sees them. */
    public List<Endpoint> enabled(Handle h, String accountId) {
        return h.createQuery("SELECT * FROM webhook_endpoints WHERE account_id = :a AND enabled = TRUE")
                .bind("a", accountId).map(MAPPER).list();
    }

    /** Writes the changeable fields; enabling clears the reason and the failure streak. */
    public void update(Endpoint e) {
        jdbi.useTransaction(h -> {
            h.createUpdate("""
                            UPDATE webhook_endpoints SET url = :url, description = :description, events = :events,
                                enabled = :enabled, disabled_reason = :reason, failing_since = :failing, updated_at = :now,
                                format = :format
                            WHERE id = :id""")
                    .bind("format", e.format())
                    .bind("url", e.url()).bind("description", e.description()).bind("events", String.join(",", e.events()))
                    .bind("enabled", e.enabled()).bind("reason", e.enabled() ? null : e.disabledReason())
                    .bind("failing", e.failingSince()).bind("now", clock.instant())
                    .bind("id", e.id()).execute();
            if (!e.enabled()) DeliveryStore.failPending(h, e.id(), "the endpoint is disabled");
        });
    }

    public void delete(String id) {
        jdbi.useTransaction(h -> {
            h.createUpdate("DELETE FROM webhook_deliveries WHERE endpoint_id = :id").bind("id", id).execute();
            h.createUpdate("DELETE FROM webhook_endpoints WHERE id = :id").bind("id", id).execute();
        });
    }

    /** The new secret signs from now on; the current one goes on signing until {@code overlapUntil}. */
    public void rotate(String id, String newSecretEnc, String currentSecretEnc, Instant overlapUntil) {
        jdbi.useHandle(h -> h.createUpdate("""
                        UPDATE webhook_endpoints SET secret_enc = :new, previous_secret_enc = :old,
                            previous_expires_at = :until, updated_at = :now WHERE id = :id""")
                .bind("new", newSecretEnc).bind("old", currentSecretEnc).bind("until", overlapUntil)
                .bind("now", clock.instant()).bind("id", id).execute());
    }

    /** Disables the endpoint with a reason, and fails the deliveries still waiting for it. */
    public void disable(String id, String reason) {
        disable(id, reason, h -> {});
    }

    /**
     * As above, after {@code first} in the same transaction (the attempt that made it give up), so that no
     * reader sees that attempt failed while the endpoint is still enabled.
     */
    public void disable(String id, String reason, Consumer<Handle> first) {
        jdbi.useTransaction(h -> {
            first.accept(h);
            h.createUpdate("""
                            UPDATE webhook_endpoints SET enabled = FALSE, disabled_reason = :reason, updated_at = :now
                            WHERE id = :id AND enabled = TRUE""")
                    .bind("reason", reason.length() > 1000 ? reason.substring(0, 1000) : reason)
                    .bind("now", clock.instant()).bind("id", id).execute();
            DeliveryStore.failPending(h, id, "the endpoint was disabled");
        });
    }

    /** Records a failed attempt; returns since when the endpoint has been failing without a success. */
    public Instant failing(String id) {
        Instant now = clock.instant();
        return jdbi.inTransaction(h -> {
            h.createUpdate("UPDATE webhook_endpoints SET failing_since = :now WHERE id = :id AND failing_since IS NULL")
                    .bind("now", now).bind("id", id).execute();
            return h.createQuery("SELECT failing_since FROM webhook_endpoints WHERE id = :id").bind("id", id)
                    .mapTo(Instant.class).findOne().orElse(now);
        });
    }

    public void succeeded(String id) {
        jdbi.useHandle(h -> h.createUpdate("UPDATE webhook_endpoints SET failing_since = NULL WHERE id = :id AND failing_since IS NOT NULL")
                .bind("id", id).execute());
    }

    /** Enabled endpoints with a delivery due now and no live lease: candidates for {@link #claim}. */
    public List<String> due(int limit) {
        Instant now = clock.instant();
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT e.id FROM webhook_endpoints e
                        WHERE e.id IN (SELECT d.endpoint_id FROM webhook_deliveries d
                                       WHERE d.state = :pending AND d.next_attempt_at <= :now)
                          AND e.enabled = TRUE AND (e.lease_expires_at IS NULL OR e.lease_expires_at < :now)
                        LIMIT :limit""")
                .bind("pending", DeliveryState.PENDING.label()).bind("now", now).bind("limit", limit).mapTo(String.class).list());
    }

    /** When the earliest delivery waiting for an enabled endpoint is due (in the past if one is due now). */
    public Optional<Instant> nextDue() {
        return Optional.ofNullable(jdbi.withHandle(h -> h.createQuery("""
                        SELECT MIN(d.next_attempt_at) FROM webhook_deliveries d
                        JOIN webhook_endpoints e ON e.id = d.endpoint_id
                        WHERE d.state = :pending AND e.enabled = TRUE""")
                .bind("pending", DeliveryState.PENDING.label()).mapTo(Instant.class).one())); // MIN of no rows is one NULL
    }

    /** Takes the endpoint's lease; exactly one server wins. */
    public boolean claim(String id, String owner, Duration lease) {
        Instant now = clock.instant();
        return jdbi.withHandle(h -> h.createUpdate("""
                        UPDATE webhook_endpoints SET lease_owner = :owner, lease_expires_at = :until
                        WHERE id = :id AND enabled = TRUE AND (lease_expires_at IS NULL OR lease_expires_at < :now)""")
                .bind("owner", owner).bind("until", now.plus(lease)).bind("id", id).bind("now", now).execute()) == 1;
    }

    /** Extends a lease this server holds; false when it lost it. */
    public boolean extend(String id, String owner, Duration lease) {
        return jdbi.withHandle(h -> h.createUpdate(
                        "UPDATE webhook_endpoints SET lease_expires_at = :until WHERE id = :id AND lease_owner = :owner")
                .bind("until", clock.instant().plus(lease)).bind("id", id).bind("owner", owner).execute()) == 1;
    }

    public void release(String id, String owner) {
        jdbi.useHandle(h -> h.createUpdate("""
                        UPDATE webhook_endpoints SET lease_owner = NULL, lease_expires_at = NULL
                        WHERE id = :id AND lease_owner = :owner""")
                .bind("id", id).bind("owner", owner).execute());
    }

    /** Frees the leases an earlier run of this node left (it was killed), so their deliveries go on now. */
    public int releaseLeasesOfNode(String node, String keep) {
        String prefix = node + "/";
        return jdbi.withHandle(h -> h.createUpdate("""
                        UPDATE webhook_endpoints SET lease_owner = NULL, lease_expires_at = NULL
                        WHERE LEFT(lease_owner, :n) = :prefix AND lease_owner <> :keep""")
                .bind("n", prefix.length()).bind("prefix", prefix).bind("keep", keep).execute());
    }

    private static List<String> events(String stored) {
        return Arrays.stream(stored.split(",")).filter(s -> !s.isEmpty()).toList();
    }

    private static Instant instant(Timestamp ts) {
        return ts == null ? null : ts.toInstant();
    }
}
