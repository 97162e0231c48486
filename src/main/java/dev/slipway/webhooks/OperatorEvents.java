package dev.slipway.webhooks;

import dev.slipway.core.Incident;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Events about the platform itself (a backup that failed), for the operator only: they go to the webhook
 * endpoints of the store's first account, the operator's own, never to a tenant's.
 */
public final class OperatorEvents {
    private static final Logger LOG = LoggerFactory.getLogger(OperatorEvents.class);

    private final Jdbi jdbi;
    private final Outbox outbox;

    public OperatorEvents(Jdbi jdbi, Outbox outbox) {
        this.jdbi = jdbi;
        this.outbox = outbox;
    }

    /**
     * Queues the event; false when it cannot be queued (the store is away): that is logged, never thrown at the caller,
     * who may send it again later.
     */
    public boolean send(String type, Object data) {
        try {
            jdbi.useTransaction(h -> h.createQuery("SELECT id FROM accounts ORDER BY created_at, id LIMIT 1").mapTo(String.class)
                    .findOne().ifPresent(operator -> outbox.event(h, operator, type, data)));
            return true;
        } catch (RuntimeException e) {
            LOG.warn("the {} event could not be queued for the operator's webhooks: {}", type, Incident.reason(e));
            return false;
        }
    }
}
