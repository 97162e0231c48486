package dev.slipway.dashboard;

import dev.slipway.accounts.Tier;
import dev.slipway.testing.Await;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.ServerPerStore;
import dev.slipway.testing.TestServer;
import dev.slipway.testing.WebhookReceiver;
import dev.slipway.webhooks.WebhookSettings;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.slipway.dashboard.WebClient.csrf;
import static dev.slipway.dashboard.WebClient.form;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Settings → Webhooks over plain HTTP on both stores: the list and its empty state, the secret shown
 * once, the API's rules on the form (with the SSRF guard on and off), CSRF, another account's
 * endpoint, and a test event delivered to a real receiver on loopback.
 */
@EachStore
@EndToEnd
class DashboardWebhooksTest {
    private static final String PASSWORD = "correct horse battery";
    private static final String PAGE = "/dashboard/settings/webhooks";
    private static final Pattern SECRET = Pattern.compile("value=\"(whsec_[^\"]+)\"");
    private static final Pattern ENDPOINT = Pattern.compile("href=\"" + PAGE + "/(wh_[A-Za-z0-9_]+)\"");

    /** Private targets allowed, as the receiver on loopback needs. */
    @RegisterExtension
    static final ServerPerStore server = ServerPerStore.start(c -> c.webhooks(WebhookSettings.DEFAULTS.withAllowPrivate(true)));
    /** The default settings: private targets refused. */
    @RegisterExtension
    static final ServerPerStore strict = ServerPerStore.start();
    static WebhookReceiver receiver;

    @EachStore.Before
    static void start() {
        receiver = WebhookReceiver.start();
    }

    @EachStore.After
    static void stop() {
        receiver.close();
    }

    private static WebClient signedIn(ServerPerStore on) {
        TestServer.Tenant tenant = on.tenant(Tier.FREE);
        String email = "u-" + UUID.randomUUID().toString().substring(0, 8) + "@example.com";
        on.slipway().users().create(tenant.account().id(), email, PASSWORD);
        WebClient web = new WebClient(on.baseUrl());
        assertThat(web.signIn(email, PASSWORD).statusCode()).isEqualTo(303);
        return web;
    }

    private static HttpResponse<String> create(WebClient web, String url, String... events) {
        String token = csrf(web.get(PAGE).body());
        String[] pairs = new String[6 + 2 * events.length];
        int i = 0;
        for (String p : new String[]{"_csrf", token, "url", url, "description", "the <b>ci</b> hook"}) pairs[i++] = p;
        for (String e : events) {
            pairs[i++] = "events";
            pairs[i++] = e;
        }
        return web.post(PAGE, pairs);
    }

    private static String group(Pattern p, String html) {
        Matcher m = p.matcher(html);
        assertThat(m.find()).as("%s in\n%s", p, html).isTrue();
        return m.group(1);
    }

    @Test
    void anEmptyListThenAnEndpointWhoseSecretIsShownOnlyOnce() {
        WebClient web = signedIn(server);
        HttpResponse<String> empty = web.get(PAGE);
        assertThat(empty.statusCode()).isEqualTo(200);
        assertThat(empty.body()).contains("no webhook endpoints yet").contains("<a href=\"" + PAGE + "\" aria-current=\"page\">Webhooks</a>")
                .contains("value=\"*\" checked");

        String url = receiver.url("/list");
        HttpResponse<String> created = create(web, url, "deployment.live", "migration.failed");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        String secret = group(SECRET, created.body());
        String id = group(ENDPOINT, created.body());
        assertThat(created.body()).contains("data-copy=\"new-secret\"").contains("the &lt;b&gt;ci&lt;/b&gt; hook");

        HttpResponse<String> list = web.get(PAGE);
        assertThat(list.body()).contains(url).contains("<code>deployment.live</code>").contains("badge-enabled")
                .doesNotContain(secret).doesNotContain("whsec_");
        HttpResponse<String> page = web.get(PAGE + "/" + id);
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains(url).contains("Nothing was sent to this endpoint yet").doesNotContain("whsec_");
    }

    @Test
    void theFormAppliesTheApisRulesAndKeepsWhatWasTyped() {
        WebClient web = signedIn(server);
        HttpResponse<String> scheme = create(web, "ftp://example.com/x", "deployment.failed");
        assertThat(scheme.statusCode()).isEqualTo(400);
        assertThat(scheme.body()).contains("The URL must be an http or https URL.").contains("value=\"ftp://example.com/x\"")
                .contains("value=\"deployment.failed\" checked").doesNotContain("value=\"*\" checked").contains("aria-invalid=\"true\"");

        HttpResponse<String> none = create(web, "http://93.184.215.14/hooks");
        assertThat(none.statusCode()).isEqualTo(400);
        assertThat(none.body()).contains("Choose at least one event").contains("value=\"http://93.184.215.14/hooks\"");
        assertThat(web.get(PAGE).body()).contains("no webhook endpoints yet");
    }

    @Test
    void aPrivateAddressIsRefusedInlineUnlessTheOperatorAllowsIt() {
        WebClient web = signedIn(strict);
        HttpResponse<String> refused = create(web, "http://127.0.0.1:9/hooks", "*");
        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(refused.body()).contains("This URL is refused: the host 127.0.0.1 resolves to 127.0.0.1, a loopback address")
                .contains("value=\"http://127.0.0.1:9/hooks\"").doesNotContain("whsec_");
        assertThat(web.get(PAGE).body()).contains("no webhook endpoints yet");

        assertThat(create(signedIn(server), "http://127.0.0.1:9/hooks", "*").statusCode()).isEqualTo(201);
    }

    @Test
    void theCreateFormNeedsTheSessionsToken() {
        WebClient web = signedIn(server);
        for (var fields : List.of(form("url", receiver.url("/x"), "events", "*"),
                form("url", receiver.url("/x"), "events", "*", "_csrf", "forged"))) {
            HttpResponse<String> r = web.post(PAGE, fields);
            assertThat(r.statusCode()).isEqualTo(403);
            assertThat(r.body()).contains("CSRF");
        }
        assertThat(web.get(PAGE).body()).contains("no webhook endpoints yet");
    }

    @Test
    void anotherAccountsEndpointIsNotFound() {
        WebClient owner = signedIn(server);
        String id = group(ENDPOINT, create(owner, receiver.url("/theirs"), "*").body());
        WebClient other = signedIn(server);
        HttpResponse<String> page = other.get(PAGE + "/" + id);
        assertThat(page.statusCode()).isEqualTo(404);
        assertThat(page.body()).startsWith("<!doctype html>").contains("There is no webhook endpoint " + id);
        assertThat(other.get(PAGE + "/" + id + "/delete").statusCode()).isEqualTo(404);
        String token = csrf(other.get(PAGE).body());
        for (String action : new String[]{"test", "disable", "delete"}) {
            assertThat(other.post(PAGE + "/" + id + "/" + action, form("_csrf", token)).statusCode()).isEqualTo(404);
        }
        assertThat(owner.get(PAGE + "/" + id).body()).contains("badge-enabled").contains("Nothing was sent");
        assertThat(other.get(PAGE).body()).doesNotContain(id);
    }

    @Test
    void aTestEventIsDeliveredAndListedThenTheEndpointIsDisabledAndDeleted() {
        WebClient web = signedIn(server);
        HttpResponse<String> created = create(web, receiver.url("/test-event"), "deployment.live");
        String secret = group(SECRET, created.body());
        String id = group(ENDPOINT, created.body());
        String token = csrf(created.body());

        HttpResponse<String> sent = web.post(PAGE + "/" + id + "/test", form("_csrf", token));
        assertThat(sent.statusCode()).isEqualTo(303);
        assertThat(sent.headers().firstValue("Location")).contains(PAGE + "/" + id + "?sent=1");
        WebhookReceiver.Received r = receiver.await(Duration.ofSeconds(10), "the test event",
                x -> "/test-event".equals(x.header("x-receiver-path")));
        assertThat(r.type()).isEqualTo("webhook.test");
        assertThat(r.verifiesWith(secret)).isTrue();
        String page = Await.value(Duration.ofSeconds(10), "the delivery listed as succeeded", () -> {
            String body = web.get(PAGE + "/" + id + "?sent=1").body();
            return body.contains("badge-succeeded") ? body : null;
        });
        assertThat(page).contains("A test event is queued").contains("<code>webhook.test</code>").contains("<td>200</td>");

        assertThat(web.post(PAGE + "/" + id + "/disable", form("_csrf", token)).statusCode()).isEqualTo(303);
        String disabled = web.get(PAGE + "/" + id).body();
        assertThat(disabled).contains("badge-disabled").contains("disabled in the dashboard by").doesNotContain("Send test event");
        assertThat(web.post(PAGE + "/" + id + "/test", form("_csrf", token)).statusCode()).isEqualTo(409);
        assertThat(web.post(PAGE + "/" + id + "/enable", form("_csrf", token)).statusCode()).isEqualTo(303);
        assertThat(web.get(PAGE + "/" + id).body()).contains("badge-enabled").contains("Send test event");

        HttpResponse<String> confirm = web.get(PAGE + "/" + id + "/delete");
        assertThat(confirm.statusCode()).isEqualTo(200);
        assertThat(confirm.body()).contains("Delete this endpoint?").contains(receiver.url("/test-event"));
        HttpResponse<String> deleted = web.post(PAGE + "/" + id + "/delete", form("_csrf", csrf(confirm.body())));
        assertThat(deleted.statusCode()).isEqualTo(303);
        assertThat(web.get(PAGE + "?deleted=1").body()).contains("The endpoint is deleted").contains("no webhook endpoints yet");
        assertThat(web.get(PAGE + "/" + id).statusCode()).isEqualTo(404);
    }
}
