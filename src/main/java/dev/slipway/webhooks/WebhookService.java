package dev.slipway.webhooks;

import dev.slipway.net.AddressGuard;
import dev.slipway.api.ApiException;
import dev.slipway.api.Body;
import dev.slipway.core.Ids;
import dev.slipway.core.Json;
import dev.slipway.secrets.SecretBox;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** What the API and the dashboard both do to endpoints, so both apply the same rules. */
public final class WebhookService {
    /** A new endpoint and its signing secret, which exists in plain only here. */
    public record Issued(Endpoint endpoint, String secret) {}

    /** A rotated secret: the new one in plain (only here), and until when the old one still signs. */
    public record Rotation(String secret, Instant previousUntil) {}

    static final Duration ROTATION_OVERLAP = Duration.ofHours(24);

    private final EndpointStore endpoints;
    private final DeliveryStore deliveries;
    private final SecretBox secrets;
    private final AddressGuard guard;
    private final Dispatcher dispatcher;
    private final Clock clock;
    private final Ids ids;

    public WebhookService(EndpointStore endpoints, DeliveryStore deliveries, SecretBox secrets, AddressGuard guard,
                          Dispatcher dispatcher, Clock clock) {
        this.endpoints = endpoints;
        this.deliveries = deliveries;
        this.secrets = secrets;
        this.guard = guard;
        this.dispatcher = dispatcher;
        this.clock = clock;
        this.ids = new Ids(clock);
    }

    /**
     * Creates an endpoint from {@code url}, {@code events} and {@code description} in {@code body};
     * 400 with every field's problem, or {@code url_not_allowed} when the guard refuses the target.
     */
    public Issued create(String accountId, Body body) {
        URI url = WebhookInput.url(body, true);
        List<String> events = WebhookInput.events(body, true);
        String description = body.string("description", false, WebhookInput.MAX_DESCRIPTION, null, null);
        String format = body.oneOf("format", false, ChatFormat.ALL);
        body.check();
        WebhookInput.consistent(url, format, dispatcher.mails());
        WebhookInput.reachable(guard, url);
        String secret = Signer.newSecret();
        Instant now = clock.instant();
        Endpoint e = new Endpoint(ids.next("wh"), accountId, url.toString(), description, events, true, null,
                secrets.encrypt(secret), null, null, null, now, now, format);
        endpoints.insert(e);
        return new Issued(e, secret);
    }

    /** Queues a {@code webhook.test} event for this endpoint only, whatever it subscribed to. */
    public Delivery sendTest(Endpoint e) {
        if (!e.enabled()) throw ApiException.invalidState("Webhook " + e.id() + " is disabled; enable it first");
        Instant now = clock.instant();
        Map<String, Object> payload = Outbox.envelope(EventTypes.TEST, now,
                Map.of("endpoint_id", e.id(), "message", "A test event from Slipway"));
        Delivery d = deliveries.enqueue(e.id(), ids.next("msg"), EventTypes.TEST, Json.write(payload));
        dispatcher.wake();
        return d;
    }

    /**
     * Changes what {@code body} names of url, events, description and enabled: 400 with every field's
     * problem, {@code url_not_allowed} for a refused target. Returns the endpoint as stored.
     */
    public Endpoint update(Endpoint e, Body body) {
        URI url = WebhookInput.url(body, false);
        List<String> events = WebhookInput.events(body, false);
        String description = body.string("description", false, WebhookInput.MAX_DESCRIPTION, null, null);
        Boolean enabled = WebhookInput.enabled(body);
        String format = body.oneOf("format", false, ChatFormat.ALL);
        if (body.node().isEmpty()) body.problem("body", "must change at least one of url, events, description, enabled, format");
        body.check();
        WebhookInput.consistent(url != null ? url : URI.create(e.url()), format != null ? format : e.format(), dispatcher.mails());
        if (url != null) WebhookInput.reachable(guard, url);
        boolean on = enabled != null ? enabled : e.enabled();
        Endpoint edited = new Endpoint(e.id(), e.accountId(), url != null ? url.toString() : e.url(),
                body.node().has("description") ? description : e.description(), events != null ? events : e.events(),
                e.enabled(), e.disabledReason(), e.secretEnc(), e.previousSecretEnc(), e.previousExpiresAt(),
                e.failingSince(), e.createdAt(), e.updatedAt(), format != null ? format : e.format());
        store(withState(edited, on, "disabled by the API"));
        return endpoints.find(e.id()).orElseThrow();
    }

    /** Enables (clearing the reason and the failure streak) or disables with {@code reason}. */
    public void setEnabled(Endpoint e, boolean on, String reason) {
        if (on != e.enabled()) store(withState(e, on, reason));
    }

    /** A new signing secret; the old one keeps signing too for {@link #ROTATION_OVERLAP}. */
    public Rotation rotate(Endpoint e) {
        String secret = Signer.newSecret();
        Instant until = clock.instant().plus(ROTATION_OVERLAP);
        endpoints.rotate(e.id(), secrets.encrypt(secret), e.secretEnc(), until);
        return new Rotation(secret, until);
    }

    /** The event of {@code d} again, as a new delivery with the same {@code webhook-id} and body. */
    public Delivery redeliver(Endpoint e, Delivery d) {
        if (!e.enabled()) throw ApiException.invalidState("Webhook " + e.id() + " is disabled; enable it first");
        Delivery again = deliveries.enqueue(e.id(), d.messageId(), d.eventType(), d.payload());
        dispatcher.wake();
        return again;
    }

    /**
     * The endpoint enabled (no reason, failure streak cleared) or disabled with {@code reason}; one
     * already in the asked state is kept as it is, its reason and streak included.
     */
    private static Endpoint withState(Endpoint e, boolean on, String reason) {
        if (on == e.enabled()) return e;
        return new Endpoint(e.id(), e.accountId(), e.url(), e.description(), e.events(), on, on ? null : reason,
                e.secretEnc(), e.previousSecretEnc(), e.previousExpiresAt(), on ? null : e.failingSince(),
                e.createdAt(), e.updatedAt(), e.format());
    }

    private void store(Endpoint e) {
        endpoints.update(e);
        if (e.enabled()) dispatcher.wake();
    }
}
