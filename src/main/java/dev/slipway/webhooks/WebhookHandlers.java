package dev.slipway.webhooks;

import dev.slipway.api.Paging;
import dev.slipway.api.Access;
import dev.slipway.api.ApiException;
import dev.slipway.api.Body;
import dev.slipway.api.Envelope;
import dev.slipway.store.Page;
import dev.slipway.store.PageRequest;
import dev.slipway.api.Requests;
import dev.slipway.auth.Principal;
import dev.slipway.api.AppUrls;
import io.javalin.http.Context;

import java.time.Clock;
import java.time.Instant;
import java.util.Set;

/** {@code /v1/webhooks}: endpoints, their secrets, their deliveries. */
public final class WebhookHandlers {
    private static final Set<String> CREATE_FIELDS = Set.of("url", "events", "description", "format");
    private static final Set<String> PATCH_FIELDS = Set.of("url", "events", "description", "enabled", "format");

    private final EndpointStore endpoints;
    private final DeliveryStore deliveries;
    private final WebhookService service;
    private final AppUrls urls;
    private final Clock clock;

    public WebhookHandlers(EndpointStore endpoints, DeliveryStore deliveries, WebhookService service, AppUrls urls,
                           Clock clock) {
        this.endpoints = endpoints;
        this.deliveries = deliveries;
        this.service = service;
        this.urls = urls;
        this.clock = clock;
    }

    public void create(Context ctx) {
        Principal principal = Requests.principal(ctx);
        Body body = Requests.json(ctx, Requests.MAX_JSON_BODY);
        body.only(CREATE_FIELDS);
        WebhookService.Issued issued = service.create(principal.accountId(), body);
        ctx.header("Location", urls.api("/v1/webhooks/" + issued.endpoint().id()));
        ctx.status(201).json(new Envelope<>(WebhookView.Created.of(issued.endpoint(), issued.secret())));
    }

    public void list(Context ctx) {
        Principal principal = Requests.principal(ctx);
        Page<Endpoint> page = endpoints.page(principal.accountId(), Paging.request(ctx));
        Instant now = clock.instant();
        ctx.json(new Page<>(page.data().stream().map(e -> WebhookView.of(e, now)).toList(), page.pagination()));
    }

    public void get(Context ctx) {
        ctx.json(new Envelope<>(WebhookView.of(owned(ctx), clock.instant())));
    }

    public void update(Context ctx) {
        Endpoint e = owned(ctx);
        Body body = Requests.json(ctx, Requests.MAX_JSON_BODY);
        body.only(PATCH_FIELDS);
        ctx.json(new Envelope<>(WebhookView.of(service.update(e, body), clock.instant())));
    }

    public void delete(Context ctx) {
        endpoints.delete(owned(ctx).id());
        ctx.status(204);
    }

    public void rotate(Context ctx) {
        Endpoint e = owned(ctx);
        WebhookService.Rotation r = service.rotate(e);
        ctx.json(new Envelope<>(new WebhookView.Rotated(e.id(), r.secret(), r.previousUntil())));
    }

    /** Sends a {@code webhook.test} event to this endpoint only, whatever it subscribed to. */
    public void test(Context ctx) {
        ctx.status(202).json(new Envelope<>(WebhookView.DeliveryView.of(service.sendTest(owned(ctx)))));
    }

    public void deliveries(Context ctx) {
        Endpoint e = owned(ctx);
        Page<Delivery> page = deliveries.page(e.id(), Paging.request(ctx));
        ctx.json(new Page<>(page.data().stream().map(WebhookView.DeliveryView::of).toList(), page.pagination()));
    }

    /** Sends a delivery's event again as a new delivery, with the same {@code webhook-id} and body. */
    public void redeliver(Context ctx) {
        Endpoint e = owned(ctx);
        String deliveryId = ctx.pathParam("delivery_id");
        Delivery d = deliveries.find(deliveryId).filter(x -> x.endpointId().equals(e.id()))
                .orElseThrow(() -> ApiException.notFound("Delivery " + deliveryId + " not found for webhook " + e.id()));
        ctx.status(202).json(new Envelope<>(WebhookView.DeliveryView.of(service.redeliver(e, d))));
    }

    private Endpoint owned(Context ctx) {
        String id = ctx.pathParam("webhook_id");
        return Access.owned(Requests.principal(ctx), endpoints.find(id), Endpoint::accountId, "Webhook", id);
    }
}
