package dev.slipway.dashboard;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.slipway.api.ApiException;
import dev.slipway.api.Body;
import dev.slipway.store.PageRequest;
import dev.slipway.dashboard.Html.Safe;
import dev.slipway.webhooks.Delivery;
import dev.slipway.webhooks.DeliveryStore;
import dev.slipway.webhooks.Endpoint;
import dev.slipway.webhooks.EndpointStore;
import dev.slipway.webhooks.EventTypes;
import dev.slipway.webhooks.WebhookService;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** Settings → Webhooks: endpoints (create with the secret shown once), an endpoint's deliveries, test, enable/disable, delete. */
public final class WebhookPages {
    static final String BASE = "/dashboard/settings/webhooks";
    private static final int RECENT = 20;

    private final EndpointStore endpoints;
    private final DeliveryStore deliveries;
    private final WebhookService service;

    public WebhookPages(EndpointStore endpoints, DeliveryStore deliveries, WebhookService service) {
        this.endpoints = endpoints;
        this.deliveries = deliveries;
        this.service = service;
    }

    /** What the "New endpoint" form shows: the values sent (kept after an error) and the problems with them. */
    private record Draft(String url, List<String> events, String description, List<String> problems, boolean badUrl) {
        static final Draft FRESH = new Draft("", List.of(EventTypes.ALL), "", List.of(), false);
    }

    public void list(Context ctx, Viewer viewer) {
        String notice = ctx.queryParam("deleted") != null ? "The endpoint is deleted: nothing more is sent to it." : null;
        render(ctx, 200, viewer, Draft.FRESH, null, notice);
    }

    /** The same checks as {@code POST /v1/webhooks}: the form becomes that request's body. */
    public void create(Context ctx, Viewer viewer, Form form) {
        String url = trimmed(form.get("url"));
        List<String> events = form.all("events");
        String description = trimmed(form.get("description"));
        ObjectNode node = JsonNodeFactory.instance.objectNode();
        if (!url.isEmpty()) node.put("url", url);
        if (!events.isEmpty()) {
            ArrayNode array = node.putArray("events");
            events.forEach(array::add);
        }
        if (!description.isEmpty()) node.put("description", description);
        try {
            WebhookService.Issued issued = service.create(viewer.accountId(), new Body(node));
            render(ctx, 201, viewer, Draft.FRESH, issued, null);
        } catch (ApiException e) {
            if (e.status() != 400) throw e;
            render(ctx, 400, viewer, new Draft(url, events, description, problems(e),
                    e.details() != null && e.details().containsKey("url")), null, null);
        }
    }

    public void show(Context ctx, Viewer viewer) {
        Endpoint e = owned(ctx, viewer);
        String notice = ctx.queryParam("sent") != null ? "A test event is queued: it appears below as it is delivered."
                : ctx.queryParam("enabled") != null ? "The endpoint is enabled." : ctx.queryParam("disabled") != null
                ? "The endpoint is disabled: events are no longer sent to it." : null;
        renderShow(ctx, 200, viewer, e, notice, null);
    }

    public void test(Context ctx, Viewer viewer, Form form) {
        Endpoint e = owned(ctx, viewer);
        if (!e.enabled()) {
            renderShow(ctx, 409, viewer, e, null, "This endpoint is disabled: enable it before sending a test event.");
            return;
        }
        service.sendTest(e);
        ctx.redirect(BASE + "/" + e.id() + "?sent=1", HttpStatus.SEE_OTHER);
    }

    public void enable(Context ctx, Viewer viewer, Form form) {
        Endpoint e = owned(ctx, viewer);
        service.setEnabled(e, true, null);
        ctx.redirect(BASE + "/" + e.id() + "?enabled=1", HttpStatus.SEE_OTHER);
    }

    public void disable(Context ctx, Viewer viewer, Form form) {
        Endpoint e = owned(ctx, viewer);
        service.setEnabled(e, false, "disabled in the dashboard by " + viewer.user().email());
        ctx.redirect(BASE + "/" + e.id() + "?disabled=1", HttpStatus.SEE_OTHER);
    }

    public void confirmDelete(Context ctx, Viewer viewer) {
        Endpoint e = owned(ctx, viewer);
        Layout.settings(ctx, 200, viewer, "Delete endpoint", Html.fmt("""
                <section class="card danger">
                  <h2>Delete this endpoint?</h2>
                  <p><code>%s</code>, created %s.</p>
                  <p>No event is sent to it any more, and its delivery history is deleted with it. This cannot be undone.</p>
                  <form method="post" action="%s/%s/delete" class="actions">
                    %s
                    <button type="submit" class="danger">Delete endpoint</button>
                    <a href="%s/%s" class="button">Cancel</a>
                  </form>
                </section>""", e.url(), Format.time(e.createdAt()), BASE, e.id(), Layout.csrf(viewer), BASE, e.id()));
    }

    public void delete(Context ctx, Viewer viewer, Form form) {
        endpoints.delete(owned(ctx, viewer).id());
        ctx.redirect(BASE + "?deleted=1", HttpStatus.SEE_OTHER);
    }

    /** Another account's endpoint is "not found", exactly like one that does not exist. */
    private Endpoint owned(Context ctx, Viewer viewer) {
        String id = ctx.pathParam("webhook_id");
        return endpoints.find(id).filter(e -> e.accountId().equals(viewer.accountId()))
                .orElseThrow(() -> ApiException.notFound("There is no webhook endpoint " + id + " in your account."));
    }

    private void render(Context ctx, int status, Viewer viewer, Draft draft, WebhookService.Issued issued, String notice) {
        List<Endpoint> all = endpoints.page(viewer.accountId(), new PageRequest(PageRequest.MAX_LIMIT, null)).data();
        Safe created = issued == null ? Html.EMPTY : Html.fmt("""
                <section class="card new-key" aria-labelledby="new-secret-title">
                  <h2 id="new-secret-title">Endpoint created</h2>
                  <p>Events for <code>%s</code> are signed with this secret. Copy it now: it is shown only this once.</p>
                  <div class="copy">
                    <label for="new-secret" class="visually-hidden">The endpoint's signing secret</label>
                    <input id="new-secret" type="text" readonly value="%s" spellcheck="false" autocomplete="off">
                    <button type="button" data-copy="new-secret">Copy</button>
                  </div>
                  <p class="muted">Verify the <code>webhook-signature</code> header with it, as the Standard Webhooks libraries do.
                  <a href="%s/%s">See the endpoint</a>.</p>
                </section>""", issued.endpoint().url(), issued.secret(), BASE, issued.endpoint().id());
        Safe table = all.isEmpty()
                ? Html.fmt("<p class=\"empty\">This account has no webhook endpoints yet. Add one below to be told when "
                        + "deployments and migrations change.</p>")
                : Html.fmt("""
                <div class="table-wrap">
                <table>
                  <caption class="visually-hidden">Webhook endpoints of %s</caption>
                  <thead><tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">Status</th>
                  <th scope="col" class="wide">Created</th></tr></thead>
                  <tbody>%s</tbody>
                </table>
                </div>""", viewer.account().name(), Html.each(all, WebhookPages::row));
        boolean invalid = !draft.problems().isEmpty();
        Layout.settings(ctx, status, viewer, "Webhooks", Html.fmt("""
                %s%s
                <h2>Webhooks</h2>
                <p class="muted">Slipway sends signed events about this account's deployments and migrations to these URLs.</p>
                %s
                <section class="card">
                  <h2>New endpoint</h2>
                  %s
                  <form method="post" action="%s" class="stack">
                    %s
                    <label for="webhook-url">URL</label>
                    <input id="webhook-url" name="url" type="url" maxlength="2000" required placeholder="https://example.com/hooks/slipway" value="%s"%s>
                    <fieldset class="events">
                      <legend>Events</legend>
                      %s
                    </fieldset>
                    <label for="webhook-description">Description <span class="muted">(optional)</span></label>
                    <input id="webhook-description" name="description" type="text" maxlength="500" value="%s">
                    <button type="submit" class="primary">New endpoint</button>
                  </form>
                </section>""", Layout.notice(notice), created, table,
                invalid ? Layout.error(String.join(" ", draft.problems())) : Html.EMPTY, BASE, Layout.csrf(viewer),
                draft.url(), draft.badUrl() ? new Safe(" aria-invalid=\"true\"") : Html.EMPTY, checkboxes(draft.events()),
                draft.description()));
    }

    private void renderShow(Context ctx, int status, Viewer viewer, Endpoint e, String notice, String error) {
        List<Delivery> recent = deliveries.page(e.id(), new PageRequest(RECENT, null)).data();
        Safe state = e.enabled() ? Format.badge("enabled")
                : Html.fmt("%s <span class=\"muted\">%s</span>", Format.badge("disabled"), Format.orDash(e.disabledReason()));
        Safe toggle = Html.fmt("""
                <form method="post" action="%s/%s/%s">%s<button type="submit">%s</button></form>""",
                BASE, e.id(), e.enabled() ? "disable" : "enable", Layout.csrf(viewer), e.enabled() ? "Disable" : "Enable");
        Safe test = Html.when(e.enabled(), Html.fmt("""
                <form method="post" action="%s/%s/test">%s<button type="submit" class="primary">Send test event</button></form>""",
                BASE, e.id(), Layout.csrf(viewer)));
        Safe history = recent.isEmpty()
                ? Html.fmt("<p class=\"empty\">Nothing was sent to this endpoint yet. Send a test event to try it.</p>")
                : Html.fmt("""
                <div class="table-wrap">
                <table>
                  <caption class="visually-hidden">Recent deliveries, newest first</caption>
                  <thead><tr><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Attempts</th>
                  <th scope="col">Last code</th><th scope="col">Last error</th><th scope="col">Next attempt</th>
                  <th scope="col" class="wide">Created</th></tr></thead>
                  <tbody>%s</tbody>
                </table>
                </div>""", Html.each(recent, WebhookPages::deliveryRow));
        Layout.settings(ctx, status, viewer, "Webhook endpoint", Html.fmt("""
                %s%s
                <p class="crumbs"><a href="%s">Webhooks</a> /</p>
                <div class="title-row">
                  <h2 class="endpoint-url"><code>%s</code></h2>
                  <div class="actions">%s%s<a class="button danger" href="%s/%s/delete">Delete</a></div>
                </div>
                <dl class="fields">
                  <dt>ID</dt><dd><code>%s</code></dd>
                  <dt>Status</dt><dd>%s</dd>
                  <dt>Events</dt><dd>%s</dd>
                  <dt>Description</dt><dd>%s</dd>
                  <dt>Failing since</dt><dd>%s</dd>
                  <dt>Created</dt><dd>%s</dd>
                </dl>
                <h2>Recent deliveries</h2>
                %s""", Layout.notice(notice), Layout.error(error), BASE, e.url(), test, toggle, BASE, e.id(),
                e.id(), state, events(e.events()), Format.orDash(e.description()), Format.timeOr(e.failingSince(), "—"),
                Format.time(e.createdAt()), history));
    }

    private static Safe row(Endpoint e) {
        Safe state = e.enabled() ? Format.badge("enabled")
                : Html.fmt("%s<br><span class=\"muted small\">%s</span>", Format.badge("disabled"), Format.orDash(e.disabledReason()));
        return Html.fmt("<tr id=\"%s\"><td><a href=\"%s/%s\"><code>%s</code></a>%s</td><td>%s</td><td>%s</td><td class=\"wide\">%s</td></tr>",
                e.id(), BASE, e.id(), e.url(),
                e.description() == null ? Html.EMPTY : Html.fmt("<br><span class=\"muted small\">%s</span>", e.description()),
                events(e.events()), state, Format.time(e.createdAt()));
    }

    private static Safe deliveryRow(Delivery d) {
        return Html.fmt("<tr id=\"%s\"><td><code>%s</code></td><td>%s</td><td>%s</td><td>%s</td><td class=\"message\">%s</td><td>%s</td><td class=\"wide\">%s</td></tr>",
                d.id(), d.eventType(), Format.badge(d.state().label()), d.attempts(),
                d.lastStatusCode() == null ? "—" : d.lastStatusCode(), Format.orDash(d.lastError()),
                Format.timeOr(d.nextAttemptAt(), "—"), Format.time(d.createdAt()));
    }

    private static Safe events(List<String> events) {
        return events.contains(EventTypes.ALL) ? Html.fmt("all (<code>*</code>)")
                : Html.each(events, t -> Html.fmt("<code>%s</code> ", t));
    }

    private static Safe checkboxes(List<String> checked) {
        List<String> all = Stream.concat(Stream.of(EventTypes.ALL), EventTypes.KNOWN.stream()).toList();
        return Html.each(all, t -> Html.fmt("""
                <label><input type="checkbox" name="events" value="%s"%s> %s</label>""", t,
                checked.contains(t) ? new Safe(" checked") : Html.EMPTY,
                t.equals(EventTypes.ALL) ? Html.fmt("<strong>All events</strong> (<code>*</code>)") : Html.fmt("<code>%s</code>", t)));
    }

    /** The API's per-field problems, as sentences for the form. */
    private static List<String> problems(ApiException e) {
        Map<String, String> details = e.details() == null ? Map.of() : e.details();
        List<String> out = new ArrayList<>();
        String url = details.get("url");
        if (url != null) {
            out.add(e.code().equals("url_not_allowed") ? "This URL is refused: " + url + "."
                    : url.equals("is required") ? "Enter the URL to send events to." : "The URL " + url + ".");
        }
        String events = details.get("events");
        if (events != null) {
            out.add(events.equals("is required") ? "Choose at least one event, or * for all of them." : "The events " + events + ".");
        }
        String description = details.get("description");
        if (description != null) out.add("The description " + description + ".");
        if (out.isEmpty()) out.add(e.getMessage());
        return out;
    }

    private static String trimmed(String s) {
        return s == null ? "" : s.trim();
    }
}
