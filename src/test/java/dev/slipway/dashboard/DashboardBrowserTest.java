package dev.slipway.dashboard;

import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Statuses;
import dev.slipway.testing.Zips;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Tier;
import dev.slipway.pipeline.NodeApp;
import dev.slipway.pipeline.Runs;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Apps;
import dev.slipway.testing.Await;
import dev.slipway.testing.GitServer;
import dev.slipway.testing.Http;
import dev.slipway.testing.TestServer;
import dev.slipway.testing.WebhookReceiver;
import dev.slipway.webhooks.WebhookSettings;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.Keys;
import org.openqa.selenium.NoAlertPresentException;
import org.openqa.selenium.WebElement;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard in a real browser (Debian's headless Chromium) against a real server, git server and
 * app processes: sign in, keys, deploy and roll back with the live log, CSRF, and account isolation.
 * Every page visited is saved under target/screenshots/. Runs on H2: the store paths it drives are
 * covered on both stores by {@link DashboardHttpTest} and the users store tests.
 */
@EndToEnd
class DashboardBrowserTest {
    static final String PASSWORD = "correct horse battery";
    static final Duration RUN = Duration.ofSeconds(120);
    static final String GATE = "gate-open";

    static GitServer git;
    static WebhookReceiver receiver;
    static TestServer server;
    static Browser browser;
    static TestServer.Tenant alice;
    static TestServer.Tenant bob;
    static TestServer.Tenant carol;
    static String aliceEmail;
    static String bobEmail;
    static String carolEmail;
    static String repo;
    static String migrationId;
    static String projectId;

    @BeforeAll
    static void start() {
        git = GitServer.start();
        receiver = WebhookReceiver.start();
        server = TestServer.start(Dialect.H2, c -> c.gitHosts(git.hosts())
                .webhooks(WebhookSettings.DEFAULTS.withAllowPrivate(true))); // the receiver is on loopback
        alice = server.tenant(Tier.TEAM);
        bob = server.tenant(Tier.TEAM);
        aliceEmail = "alice-" + UUID.randomUUID().toString().substring(0, 6) + "@example.com";
        bobEmail = "bob-" + UUID.randomUUID().toString().substring(0, 6) + "@example.com";
        server.slipway().users().create(alice.account().id(), aliceEmail, PASSWORD);
        server.slipway().users().create(bob.account().id(), bobEmail, PASSWORD);
        carol = server.tenant(Tier.TEAM);
        carolEmail = "carol-" + UUID.randomUUID().toString().substring(0, 6) + "@example.com";
        server.slipway().users().create(carol.account().id(), carolEmail, PASSWORD);
        // alice's app: migrated through the API now, so it builds while the browser starts
        repo = "acme/shop-" + UUID.randomUUID().toString().substring(0, 6);
        git.createRepo(repo);
        git.commit(repo, "main", NodeApp.version("v1"), "First version");
        var created = alice.http().post("/v1/migrations", "{\"source\":\"github\",\"repo\":\"" + repo + "\",\"framework\":\"node-express\"}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        migrationId = created.json().at("/data/id").asText();
        projectId = created.json().at("/data/project_id").asText();
        browser = Browser.open("dashboard", 1280, 900);
    }

    @AfterAll
    static void stop() {
        if (browser != null) browser.close();
        server.close();
        git.close();
        receiver.close();
    }

    @BeforeEach
    void freshBrowser(TestInfo test) {
        browser.prefix(test.getTestMethod().orElseThrow().getName());
        browser.driver().manage().window().setSize(new Dimension(1280, 900));
        browser.go(server.baseUrl() + "/dashboard/sign-in");
        browser.driver().manage().deleteAllCookies();
    }

    // --- helpers ---

    private String url(String path) {
        return server.baseUrl() + path;
    }

    /** Screenshot of the page, and the checks every page must pass: its controls are labelled. */
    private void visit(String name) {
        browser.shot(name);
        @SuppressWarnings("unchecked")
        List<String> unlabelled = (List<String>) browser.js("""
                return Array.from(document.querySelectorAll('input:not([type=hidden]), select, textarea, button'))
                  .filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label') && !e.textContent.trim())
                  .map(e => e.outerHTML);""");
        assertThat(unlabelled).as("controls without a label on " + browser.url()).isEmpty();
    }

    private void signIn(String email) {
        browser.go(url("/dashboard/sign-in"));
        browser.type("#email", email);
        browser.type("#password", PASSWORD);
        browser.clickAndWait("form[action='/dashboard/sign-in'] button[type=submit]");
        assertThat(browser.url()).endsWith("/dashboard/projects");
    }

    private String logText() {
        return browser.waitUntil(Duration.ofSeconds(5), d -> browser.textWhileReloading("#log"));
    }

    private void awaitStatus(String status) {
        browser.waitUntil(RUN, d -> {
            if (!browser.all("#run-status .badge-" + status).isEmpty()) return true;
            if (!browser.all("#run-status .badge-failed").isEmpty()) {
                throw new AssertionError("the run failed:\n" + browser.textWhileReloading("#log"));
            }
            return false;
        });
    }

    private static JsonNode awaitMigration(String id) {
        return Statuses.await(alice.http(), "migrations", id, "complete", RUN);
    }

    // --- tests ---

    @Test
    void aWrongPasswordIsRefusedAndTheRightOneSignsInWithTheKeyboard() {
        browser.go(url("/dashboard/projects"));
        assertThat(browser.url()).contains("/dashboard/sign-in?next=");
        visit("sign-in");

        browser.type("#email", aliceEmail);
        browser.type("#password", "not my password");
        browser.pressAndWait("#password", Keys.ENTER);
        assertThat(browser.text(".alert-error")).isEqualTo("Wrong email or password.");
        assertThat(browser.find("#email").getAttribute("value")).isEqualTo(aliceEmail);
        visit("wrong-password");

        // keyboard only: the email field has focus, Tab reaches the password, Enter submits
        WebElement focused = browser.driver().switchTo().activeElement();
        assertThat(focused.getAttribute("id")).isEqualTo("email");
        focused.sendKeys(Keys.TAB);
        WebElement password = browser.driver().switchTo().activeElement();
        assertThat(password.getAttribute("id")).isEqualTo("password");
        password.sendKeys(PASSWORD, Keys.ENTER);
        browser.waitUntil(Duration.ofSeconds(10), d -> d.getCurrentUrl().endsWith("/dashboard/projects"));
        assertThat(browser.text(".top .email")).isEqualTo(aliceEmail);
        visit("projects");

        browser.clickAndWait(".top form[action='/dashboard/sign-out'] button");
        assertThat(browser.text(".alert-ok")).isEqualTo("You are signed out.");
        visit("signed-out");
        browser.go(url("/dashboard/settings/api-keys"));
        assertThat(browser.url()).contains("/dashboard/sign-in");
    }

    @Test
    void aKeyMadeHereWorksOnTheApiUntilItIsRevokedHere() {
        signIn(aliceEmail);
        browser.clickAndWait(".top nav a[href='/dashboard/settings']");
        assertThat(browser.url()).endsWith("/dashboard/settings/api-keys");
        visit("api-keys");

        browser.type("#key-name", "ci-from-dashboard");
        browser.clickAndWait("form[action='/dashboard/settings/api-keys'] button[type=submit]");
        assertThat(browser.text("#new-key-title")).contains("ci-from-dashboard");
        String secret = browser.find("#new-key").getAttribute("value");
        assertThat(secret).startsWith("sk_").hasSize(43);
        browser.find("button[data-copy='new-key']").click();
        browser.waitUntil(Duration.ofSeconds(5), d -> d.findElement(By.cssSelector("button[data-copy]")).getText().equals("Copied"));
        visit("new-key-shown-once");

        Http api = new Http(server.baseUrl(), secret);
        assertThat(api.get("/v1/projects").status()).isEqualTo(200);

        browser.go(url("/dashboard/settings/api-keys"));
        assertThat(browser.source()).doesNotContain(secret);
        WebElement row = browser.all("tbody tr").stream().filter(r -> r.getText().contains("ci-from-dashboard")).findFirst().orElseThrow();
        assertThat(row.getText()).contains(secret.substring(0, 10));
        visit("key-listed");

        row.findElement(By.linkText("Revoke")).click();
        browser.waitUntil(Duration.ofSeconds(10), d -> d.getCurrentUrl().endsWith("/revoke"));
        assertThat(browser.text("h2")).contains("Revoke “ci-from-dashboard”?");
        visit("revoke-confirmation");
        browser.clickAndWait(".card.danger button[type=submit]");
        assertThat(browser.text(".alert-ok")).contains("ci-from-dashboard").contains("revoked");
        visit("revoked");

        var refused = api.get("/v1/projects");
        assertThat(refused.status()).isEqualTo(401);
        assertThat(refused.json().at("/error/code").asText()).isEqualTo("unauthorized");
    }

    @Test
    void deployFromTheProjectPageWatchItGoLiveThenRollBack() {
        awaitMigration(migrationId);
        String first = alice.http().get("/v1/projects/" + projectId).json().at("/data/production_deployment_id").asText();
        String production = alice.http().get("/v1/projects/" + projectId).json().at("/data/url").asText();
        assertThat(Apps.get(production).body()).startsWith("app:v1");
        // its build waits for the test: the page is seen following the run before the run ends and the page reloads
        String marker = "dashboard-follow-" + Long.toString(System.nanoTime(), 36);
        String v2 = git.commit(repo, "main", NodeApp.gatedBuild("v2", 120_000, marker, GATE), "Second version");

        signIn(aliceEmail);
        browser.clickAndWait("a[href='/dashboard/projects/" + projectId + "']");
        assertThat(browser.text("h1")).isEqualTo(alice.http().get("/v1/projects/" + projectId).json().at("/data/name").asText());
        assertThat(browser.source()).contains(production);
        assertThat(browser.all("form[action='/dashboard/deployments/" + first + "/rollback']"))
                .as("production itself cannot be rolled back to").isEmpty();
        visit("project");

        browser.clickAndWait("form[action='/dashboard/projects/" + projectId + "/deploy'] button");
        assertThat(browser.url()).contains("/dashboard/deployments/dep_");
        String second = browser.url().substring(browser.url().lastIndexOf('/') + 1);
        // lines arrive in the page as the run writes them (the stream), before the page reloads at the end
        WebElement log = browser.find("#log");
        int rendered = log.findElements(By.tagName("li")).size();
        assertThat(browser.text("#log-state")).isEqualTo("following live…");
        browser.waitUntil(RUN, d -> {
            Runs.openGates(GATE, marker);
            return log.findElements(By.tagName("li")).size() > rendered;
        });
        visit("deployment-following");
        browser.waitUntil(RUN, d -> {
            Runs.openGates(GATE, marker);
            return logText() != null && logText().contains("Deployment is live at");
        });
        visit("deployment-log-live");
        awaitStatus("live");
        assertThat(logText()).contains("Deployment queued").contains("Deployment is live at");
        assertThat(browser.all("#log li.log-success")).isNotEmpty();
        assertThat(browser.text("#run-status")).contains("live").contains("production");
        assertThat(browser.source()).contains(v2.substring(0, 7));
        visit("deployment-live");
        assertThat(Apps.get(production).body()).startsWith("app:v2");

        browser.go(url("/dashboard/projects/" + projectId));
        assertThat(browser.all("form[action='/dashboard/deployments/" + second + "/rollback']")).isEmpty();
        visit("project-after-deploy");
        browser.find("form[action='/dashboard/deployments/" + first + "/rollback'] button").click();
        browser.waitUntil(Duration.ofSeconds(5), d -> {
            try {
                d.switchTo().alert().accept();
                return true;
            } catch (NoAlertPresentException notYet) {
                return false;
            }
        });
        browser.waitUntil(Duration.ofSeconds(10), d -> !d.getCurrentUrl().contains("/dashboard/projects/"));
        visit("rollback-following");
        awaitStatus("live");
        assertThat(browser.source()).contains("Rollback to").contains(first);
        visit("rollback-live");
        assertThat(Apps.get(production).body()).startsWith("app:v1");
        assertThat(alice.http().get("/v1/deployments/" + second).json().at("/data/status").asText()).isEqualTo("rolled_back");

        browser.go(url("/dashboard/deployments/" + first));
        assertThat(browser.all("a[href='/dashboard/migrations/" + migrationId + "']")).isNotEmpty();
        browser.go(url("/dashboard/projects/" + projectId));
        browser.clickAndWait("a[href='/dashboard/migrations/" + migrationId + "']");
        assertThat(browser.text("#run-status")).contains("complete");
        assertThat(logText()).contains("Migration complete");
        visit("migration");
    }

    @Test
    void aWebhookEndpointMadeHereGetsTheTestEventAndListsTheDelivery() {
        signIn(bobEmail);
        browser.go(url("/dashboard/settings"));
        browser.clickAndWait(".tabs a[href='/dashboard/settings/webhooks']");
        assertThat(browser.text(".empty")).contains("no webhook endpoints yet");
        visit("webhooks-empty");

        browser.type("#webhook-url", receiver.url("/browser"));
        browser.find("input[name=events][value='*']").click();
        browser.clickAndWait("form[action='/dashboard/settings/webhooks'] button[type=submit]");
        assertThat(browser.text(".alert-error")).contains("Choose at least one event");
        assertThat(browser.find("#webhook-url").getAttribute("value")).isEqualTo(receiver.url("/browser"));
        visit("webhook-no-events");

        browser.find("input[name=events][value='deployment.live']").click();
        browser.find("input[name=events][value='deployment.failed']").click();
        browser.type("#webhook-description", "Chat notifications");
        browser.clickAndWait("form[action='/dashboard/settings/webhooks'] button[type=submit]");
        String secret = browser.find("#new-secret").getAttribute("value");
        assertThat(secret).startsWith("whsec_");
        browser.find("button[data-copy='new-secret']").click();
        browser.waitUntil(Duration.ofSeconds(5), d -> d.findElement(By.cssSelector("button[data-copy]")).getText().equals("Copied"));
        assertThat(browser.text("tbody")).contains(receiver.url("/browser")).contains("deployment.live").contains("Chat notifications");
        visit("webhook-secret-shown-once");

        browser.clickAndWait(".new-key a[href^='/dashboard/settings/webhooks/wh_']");
        assertThat(browser.source()).doesNotContain(secret);
        browser.clickAndWait("form[action$='/test'] button");
        WebhookReceiver.Received received = receiver.await(Duration.ofSeconds(10), "the test event",
                r -> "/browser".equals(r.header("x-receiver-path")));
        assertThat(received.verifiesWith(secret)).isTrue();
        browser.waitUntil(Duration.ofSeconds(10), d -> {
            d.navigate().refresh();
            return !d.findElements(By.cssSelector("tbody .badge-succeeded")).isEmpty();
        });
        assertThat(browser.text("tbody")).contains("webhook.test").contains("200");
        visit("webhook-delivered");
    }

    @Test
    void aProjectMadeFromTheNewProjectFormBuildsAndGoesLive() {
        String formRepo = "acme/form-" + UUID.randomUUID().toString().substring(0, 6);
        git.createRepo(formRepo);
        git.commit(formRepo, "main", NodeApp.version("form"), "From the form");

        signIn(carolEmail);
        browser.clickAndWait("a[href='/dashboard/projects/new']");
        assertThat(browser.text("h1")).isEqualTo("New project");
        visit("new-project");
        browser.type("#repo", "not a repository");
        browser.clickAndWait("form[action='/dashboard/projects/new'] button[type=submit]");
        assertThat(browser.text(".alert-error")).startsWith("repo ");
        assertThat(browser.find("#repo").getAttribute("value")).as("the draft is kept").isEqualTo("not a repository");
        assertThat(carol.http().get("/v1/projects").json().at("/data")).as("nothing made from a refused form").isEmpty();
        visit("new-project-refused");

        browser.type("#repo", formRepo);
        browser.clickAndWait("form[action='/dashboard/projects/new'] button[type=submit]");
        assertThat(browser.url()).contains("/dashboard/migrations/mig_");
        awaitStatus("complete");
        visit("new-project-live");
        JsonNode project = carol.http().get("/v1/projects").json().at("/data/0");
        assertThat(project.get("repo").asText()).isEqualTo(formRepo);
        assertThat(project.get("framework").isNull()).as("left to detection").isTrue();
        assertThat(Apps.get(project.get("url").asText()).body()).startsWith("app:form");
        browser.go(url("/dashboard/projects/" + project.get("id").asText()));
        assertThat(browser.source()).as("the framework its migration detected").contains("node <span class=\"muted\">(detected)</span>");
    }

    @Test
    void aZipChosenInTheUploadFormBuildsAndGoesLive() throws Exception {
        TestServer.Tenant dave = server.tenant(Tier.TEAM);
        String daveEmail = "dave-" + UUID.randomUUID().toString().substring(0, 6) + "@example.com";
        server.slipway().users().create(dave.account().id(), daveEmail, PASSWORD);
        Path zip = Files.createTempFile("slipway-form-", ".zip");
        try {
            Files.write(zip, Zips.of(NodeApp.version("zip-form")));
            signIn(daveEmail);
            browser.go(url("/dashboard/projects/new"));
            browser.find("#zip").sendKeys(zip.toAbsolutePath().toString());
            browser.type("#upload_name", "from-a-zip-" + UUID.randomUUID().toString().substring(0, 6));
            browser.clickAndWait("form[action='/dashboard/projects/new/upload'] button[type=submit]");
            assertThat(browser.url()).contains("/dashboard/migrations/mig_");
            awaitStatus("complete");
            JsonNode project = dave.http().get("/v1/projects").json().at("/data/0");
            assertThat(project.get("source").asText()).isEqualTo("zip");
            assertThat(Apps.get(project.get("url").asText()).body()).startsWith("app:zip-form");
        } finally {
            Files.deleteIfExists(zip);
        }
    }

    @Test
    void aFormWithoutTheSessionsTokenIsRefused() {
        signIn(aliceEmail);
        browser.go(url("/dashboard/settings/api-keys"));
        int keys = server.slipway().keys().list(alice.account().id()).size();
        browser.js("document.querySelector(\"form[action='/dashboard/settings/api-keys'] input[name=_csrf]\").value = 'forged';");
        browser.type("#key-name", "forged");
        browser.clickAndWait("form[action='/dashboard/settings/api-keys'] button[type=submit]");
        assertThat(browser.text("h1")).isEqualTo("Refused");
        assertThat(browser.text(".alert-error")).contains("CSRF");
        visit("csrf-refused");
        assertThat(server.slipway().keys().list(alice.account().id())).hasSize(keys);
    }

    @Test
    void anotherAccountNeverSeesAlicesProjects() {
        String deployment = alice.http().get("/v1/migrations/" + migrationId).json().at("/data/deployment_id").asText();
        String aliceKey = server.slipway().keys().list(alice.account().id()).getFirst().id();
        String projectName = alice.http().get("/v1/projects/" + projectId).json().at("/data/name").asText();

        signIn(bobEmail);
        assertThat(browser.text(".empty")).contains("No projects yet.");
        assertThat(browser.source()).doesNotContain(projectName).doesNotContain(projectId);
        visit("bob-projects-empty");

        for (String path : List.of("/dashboard/projects/" + projectId, "/dashboard/deployments/" + deployment,
                "/dashboard/migrations/" + migrationId, "/dashboard/settings/api-keys/" + aliceKey + "/revoke")) {
            browser.go(url(path));
            assertThat(browser.text("h1")).as(path).isEqualTo("Not found");
            assertThat(browser.source()).doesNotContain(projectName);
        }
        visit("other-accounts-project-not-found");
        browser.go(url("/dashboard/settings/api-keys"));
        assertThat(browser.source()).doesNotContain(aliceKey);
        visit("bob-api-keys");
    }

    @Test
    void pagesFitAPhoneScreen() {
        browser.driver().manage().window().setSize(new Dimension(390, 844));
        signIn(aliceEmail);
        for (String path : List.of("/dashboard/projects", "/dashboard/projects/" + projectId,
                "/dashboard/migrations/" + migrationId, "/dashboard/settings/api-keys",
                "/dashboard/settings/webhooks")) {
            browser.go(url(path));
            long overflow = (Long) browser.js("return document.documentElement.scrollWidth - window.innerWidth;");
            assertThat(overflow).as("horizontal overflow of " + path + " by " + browser.js("""
                    return Array.from(document.querySelectorAll('body *'))
                      .filter(e => e.getBoundingClientRect().right > window.innerWidth + 1)
                      .map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right)).join(', ');""")).isLessThanOrEqualTo(0);
            visit("phone" + path.replace('/', '-').replaceAll("-(prj|mig)_[A-Za-z0-9]+", "-$1"));
        }
    }
}
