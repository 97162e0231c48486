package dev.slipway.webhooks;

import dev.slipway.core.Incident;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Optional;

/**
 * Events about the platform itself (a backup that failed, the store lost), for the operator only: they go to the
 * webhook endpoints of the store's first account, the operator's own, never to a tenant's. An event the store cannot
 * take (it is away) is sent at once to the endpoints {@link #remember}ed last, signed as ever, tried once and recorded
 * nowhere.
 */
public final class OperatorEvents {
    private static final Logger LOG = LoggerFactory.getLogger(OperatorEvents.class);

    private final Jdbi jdbi;
    private final Outbox outbox;
    private final EndpointStore endpoints;
    private final Dispatcher dispatcher;
    private volatile List<Endpoint> remembered = List.of();

    public OperatorEvents(Jdbi jdbi, Outbox outbox, EndpointStore endpoints, Dispatcher dispatcher) {
        this.jdbi = jdbi;
        this.outbox = outbox;
        this.endpoints = endpoints;
        this.dispatcher = dispatcher;
    }

    /**
     * Queues the event, or, when the store cannot take it, sends it at once to the endpoints remembered last. False when
     * it was neither queued nor delivered: that is logged, never thrown at the caller, who may send it again later.
     */
    public boolean send(String type, Object data) {
        try {
            jdbi.useTransaction(h -> operator(h).ifPresent(operator -> outbox.event(h, operator, type, data)));
            return true;
        } catch (RuntimeException e) {
            List<Endpoint> targets = remembered.stream().filter(p -> EventTypes.matches(p.events(), type)).toList();
            if (!targets.isEmpty() && dispatcher.sendNow(targets, type, data)) return true;
            LOG.warn("the {} event could not be queued for the operator's webhooks: {}", type, Incident.reason(e));
            return false;
        }
    }

    /** Reads the operator's enabled endpoints now (every few seconds): what an event goes to while the store is away. */
    public void remember() {
        try {
            remembered = jdbi.withHandle(h -> operator(h).map(operator -> endpoints.enabled(h, operator)).orElse(List.of()));
        } catch (RuntimeException e) {
            // the store is away: what was read before stays
        }
    }

    private static Optional<String> operator(Handle h) {
        return h.createQuery("SELECT id FROM accounts ORDER BY created_at, id LIMIT 1").mapTo(String.class).findOne();
    }
}
