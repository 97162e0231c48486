package dev.slipway.dashboard;

import dev.slipway.accounts.Tier;
import dev.slipway.build.Artifact;
import dev.slipway.build.ArtifactStore;
import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.testing.Apps;
import dev.slipway.testing.Statuses;
import dev.slipway.testing.Zips;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;
import dev.slipway.deployments.Deployment;
import dev.slipway.deployments.DeploymentStatus;
import dev.slipway.logs.Level;
import dev.slipway.projects.NewProject;
import dev.slipway.projects.Project;
import dev.slipway.store.Dialect;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.ServerPerStore;
import dev.slipway.testing.TestServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.http.HttpResponse;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;

import static dev.slipway.dashboard.WebClient.csrf;
import static dev.slipway.dashboard.WebClient.form;
import static org.assertj.core.api.Assertions.assertThat;

/** The dashboard over plain HTTP on both stores: sessions, cookies, CSRF, throttling, escaping, and a render measurement. */
@EachStore
@EndToEnd
class DashboardHttpTest {
    static final String PASSWORD = "correct horse battery";

    final Dialect kind = server.kind();

    @RegisterExtension
    static final ServerPerStore server = ServerPerStore.start();

    /** A new account with a key and a dashboard user; returns the user's email. */
    static String user(TestServer.Tenant tenant) {
        String email = "u-" + UUID.randomUUID().toString().substring(0, 8) + "@example.com";
        server.slipway().users().create(tenant.account().id(), email, PASSWORD);
        return email;
    }

    private WebClient signedIn(TestServer.Tenant tenant) {
        WebClient web = new WebClient(server.baseUrl());
        HttpResponse<String> r = web.signIn(user(tenant), PASSWORD);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(303);
        assertThat(r.headers().firstValue("Location")).contains("/dashboard/projects");
        return web;
    }

    @Test
    void pagesNeedASessionWhoseCookieIsHttpOnlyAndSameSite() {
        WebClient web = new WebClient(server.baseUrl());
        HttpResponse<String> root = web.get("/");
        assertThat(root.statusCode()).isEqualTo(302);
        assertThat(root.headers().firstValue("Location")).contains("/dashboard");
        HttpResponse<String> page = web.get("/dashboard/settings/api-keys");
        assertThat(page.statusCode()).isEqualTo(302);
        assertThat(page.headers().firstValue("Location")).contains("/dashboard/sign-in?next=%2Fdashboard%2Fsettings%2Fapi-keys");
        assertThat(web.get("/dashboard/deployments/dep_x/logs").statusCode()).isEqualTo(401);
        for (String path : List.of("/dashboard/no-such-page", "/dashboard/sign-out")) {
            HttpResponse<String> error = web.get(path);
            assertThat(error.statusCode()).isIn(404, 405);
            assertThat(error.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/html"));
            assertThat(error.body()).startsWith("<!doctype html>").contains("Request id");
        }
        assertThat(web.get("/v1/no-such-route").body()).as("the API keeps its JSON errors").startsWith("{\"error\"");

        HttpResponse<String> form = web.get("/dashboard/sign-in");
        assertThat(form.statusCode()).isEqualTo(200);
        assertThat(form.headers().firstValue("Content-Security-Policy")).hasValueSatisfying(v -> assertThat(v).contains("script-src 'self'"));
        assertThat(form.headers().allValues("Set-Cookie")).anySatisfy(c -> assertThat(c)
                .startsWith("slipway_signin=").contains("HttpOnly", "SameSite=Strict", "Path=/dashboard/sign-in").doesNotContain("Secure"));
        assertThat(form.body()).as("without SMTP an operator resets a password").contains("slipway users reset-password")
                .doesNotContain("Forgot your password?</a>");
        HttpResponse<String> noMail = web.get("/dashboard/password-reset");
        assertThat(noMail.statusCode()).isEqualTo(404);
        assertThat(noMail.body()).contains("This server sends no mail", "slipway users reset-password");

        TestServer.Tenant tenant = server.tenant(Tier.FREE);
        String email = user(tenant);
        HttpResponse<String> signedIn = web.post("/dashboard/sign-in",
                form("_csrf", csrf(form.body()), "email", email.toUpperCase(), "password", PASSWORD,
                        "next", "/dashboard/settings/api-keys"));
        assertThat(signedIn.statusCode()).as(signedIn.body()).isEqualTo(303);
        assertThat(signedIn.headers().firstValue("Location")).contains("/dashboard/settings/api-keys");
        String cookie = signedIn.headers().allValues("Set-Cookie").stream().filter(c -> c.startsWith("slipway_session=")).findFirst().orElseThrow();
        assertThat(cookie).contains("HttpOnly", "SameSite=Lax", "Path=/dashboard", "Max-Age=43200").doesNotContain("Secure");
        String token = cookie.substring("slipway_session=".length(), cookie.indexOf(';'));
        long stored = server.slipway().database().jdbi().withHandle(h -> h.createQuery(
                "SELECT COUNT(*) FROM user_sessions WHERE token_hash = :t").bind("t", token).mapTo(Long.class).one());
        assertThat(stored).as("the plain token is never stored").isZero();

        HttpResponse<String> keys = web.get("/dashboard/settings/api-keys");
        assertThat(keys.statusCode()).isEqualTo(200);
        assertThat(keys.body()).contains(email).contains(tenant.account().name());

        HttpResponse<String> out = web.post("/dashboard/sign-out", form("_csrf", csrf(keys.body())));
        assertThat(out.statusCode()).isEqualTo(303);
        assertThat(web.get("/dashboard/settings/api-keys").statusCode()).isEqualTo(302);
    }

    @Test
    void formsWithoutTheSessionsTokenAreRefused() {
        TestServer.Tenant tenant = server.tenant(Tier.FREE);
        WebClient web = signedIn(tenant);
        int before = server.slipway().keys().list(tenant.account().id()).size();
        for (var fields : List.of(form("name", "ci"), form("name", "ci", "_csrf", "forged"))) {
            HttpResponse<String> r = web.post("/dashboard/settings/api-keys", fields);
            assertThat(r.statusCode()).isEqualTo(403);
            assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/html"));
            assertThat(r.body()).contains("CSRF").contains("reload the page");
        }
        assertThat(server.slipway().keys().list(tenant.account().id())).hasSize(before);
        // the token of another session is refused too
        WebClient other = signedIn(server.tenant(Tier.FREE));
        String othersToken = csrf(other.get("/dashboard/settings/api-keys").body());
        assertThat(web.post("/dashboard/settings/api-keys", form("name", "ci", "_csrf", othersToken)).statusCode()).isEqualTo(403);
        // and the sign-in form needs the token of its own cookie
        WebClient fresh = new WebClient(server.baseUrl());
        assertThat(fresh.post("/dashboard/sign-in", form("_csrf", "x".repeat(40), "email", "a@b.c", "password", "p"))
                .statusCode()).isEqualTo(403);

        String token = csrf(web.get("/dashboard/settings/api-keys").body());
        HttpResponse<String> created = web.post("/dashboard/settings/api-keys", form("name", "<script>alert(1)</script>", "_csrf", token));
        assertThat(created.statusCode()).isEqualTo(201);
        assertThat(created.body()).doesNotContain("<script>alert").contains("&lt;script&gt;alert(1)&lt;/script&gt;");
    }

    @Test
    void repeatedWrongPasswordsAreSlowedDownEvenForTheRightPassword() {
        TestServer.Tenant tenant = server.tenant(Tier.FREE);
        String email = user(tenant);
        WebClient web = new WebClient(server.baseUrl());
        for (int i = 0; i < 5; i++) {
            HttpResponse<String> wrong = web.signIn(email, "wrong password " + i);
            assertThat(wrong.statusCode()).isEqualTo(401);
            assertThat(wrong.body()).contains("Wrong email or password.").contains("value=\"" + email + "\"");
        }
        HttpResponse<String> slowed = web.signIn(email, PASSWORD);
        assertThat(slowed.statusCode()).isEqualTo(429);
        assertThat(slowed.body()).contains("Too many failed sign-ins. Try again in");
        assertThat(slowed.headers().firstValue("Retry-After")).hasValueSatisfying(v -> assertThat(Integer.parseInt(v)).isBetween(1, 2));
    }

    @Test
    void signInGoesOnlyToDashboardPages() {
        WebClient web = new WebClient(server.baseUrl());
        String email = user(server.tenant(Tier.FREE));
        String token = csrf(web.get("/dashboard/sign-in").body());
        HttpResponse<String> r = web.post("/dashboard/sign-in",
                form("_csrf", token, "email", email, "password", PASSWORD, "next", "//evil.example/dashboard"));
        assertThat(r.headers().firstValue("Location")).contains("/dashboard/projects");
    }

    @Test
    void revokingAKeyHereRefusesItOnTheApiAtOnce() {
        TestServer.Tenant tenant = server.tenant(Tier.FREE);
        WebClient web = signedIn(tenant);
        Http api = new Http(server.baseUrl(), tenant.key());
        // warm the authenticator's cache, then revoke and use the key with no pause
        assertThat(api.get("/v1/projects").status()).isEqualTo(200);
        String keyId = server.slipway().keys().list(tenant.account().id()).getFirst().id();
        String token = csrf(web.get("/dashboard/settings/api-keys/" + keyId + "/revoke").body());
        assertThat(web.post("/dashboard/settings/api-keys/" + keyId + "/revoke", form("_csrf", token)).statusCode()).isEqualTo(303);
        assertThat(api.get("/v1/projects").status()).isEqualTo(401);
    }

    @Test
    void theProjectPageListsTheNewestPreviewOfEachBranchWithItsBranchAddressEscaped() {
        TestServer.Tenant tenant = server.tenant(Tier.FREE);
        WebClient web = signedIn(tenant);
        Project p = server.slipway().projects().create(new NewProject(tenant.account().id(),
                "pv-" + UUID.randomUUID().toString().substring(0, 8), "github", "acme/pv", "main", "static",
                "us-east-1", null, null));
        var deployments = server.slipway().stores().deployments();
        String hostile = "feat/<img src=x onerror=alert(1)>";
        List<String> ids = new java.util.ArrayList<>();
        Instant first = Instant.now();
        List<String> branches = List.of(hostile, hostile, "fix-1");
        for (int i = 0; i < branches.size(); i++) {
            String branch = branches.get(i);
            Instant at = first.plusSeconds(i); // the second preview of the branch is its newest
            String id = "dep_pv" + i + UUID.randomUUID().toString().replace("-", "").substring(0, 17);
            ids.add(id);
            deployments.jdbi().useTransaction(h -> deployments.insert(h, new Deployment(id, tenant.account().id(), p.id(), null,
                    "b".repeat(40), "preview", branch, DeploymentStatus.DEPLOYING, null, null, null, null, "us-east-1", "local",
                    null, at, null, null, false, null, null, Deployment.PREVIEW, null)));
            deployments.transition(id, DeploymentStatus.DEPLOYING, DeploymentStatus.LIVE, Level.SUCCESS, "Preview is live");
        }
        String page = web.get("/dashboard/projects/" + p.id()).body();
        String previews = page.substring(page.indexOf("<h2>Previews</h2>"), page.indexOf("<h2>Deployments</h2>"));
        assertThat(previews).contains(ids.get(1)).doesNotContain(ids.get(0)).contains(ids.get(2))
                .contains(p.name() + "-git-fix-1.").contains(p.name() + "-git-feat-img-src-x-onerror-alert-1-")
                .contains("feat/&lt;img src=x onerror=alert(1)&gt;").doesNotContain("<img");
        assertThat(page).contains("preview of <code>fix-1</code>");
    }

    @Test
    void theLogStreamsBehindTheSessionToItsAccountOnly() {
        TestServer.Tenant tenant = server.tenant(Tier.FREE);
        WebClient web = signedIn(tenant);
        Project p = server.slipway().projects().create(new NewProject(tenant.account().id(),
                "logs-" + UUID.randomUUID().toString().substring(0, 8), "github", "acme/logs", "main", "node-express",
                "us-east-1", null, null));
        var deployments = server.slipway().stores().deployments();
        String id = "dep_logs" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        deployments.jdbi().useTransaction(h -> deployments.insert(h, new Deployment(id, tenant.account().id(), p.id(), null,
                null, null, "main", DeploymentStatus.QUEUED, null, null, null, null, "us-east-1", "local", null,
                Instant.now(), null, null, false, null)));
        var logs = server.slipway().stores().logs();
        logs.append(id, Level.INFO, "Build <started>");
        logs.append(id, Level.ERROR, "compile error");
        HttpResponse<String> running = web.get("/dashboard/deployments/" + id);
        assertThat(running.body()).doesNotContain("id=\"failure\"");
        deployments.transition(id, DeploymentStatus.QUEUED, DeploymentStatus.FAILED, Level.ERROR,
                "Deployment failed: npm ci <exited> with code 1");

        HttpResponse<String> page = web.get("/dashboard/deployments/" + id);
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("<li class=\"log-error\">").contains("Build &lt;started&gt;")
                .contains("data-follow=\"false\"").contains("badge-failed");
        assertThat(page.body()).as("the reason first, escaped, above the fields and the log")
                .contains("<p class=\"msg\">npm ci &lt;exited&gt; with code 1</p>");
        assertThat(page.body().indexOf("id=\"failure\"")).isPositive().isLessThan(page.body().indexOf("class=\"fields\""));

        HttpResponse<String> stream = web.stream("/dashboard/deployments/" + id + "/logs");
        assertThat(stream.statusCode()).isEqualTo(200);
        assertThat(stream.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/event-stream"));
        assertThat(stream.body()).contains("event: log").contains("\"message\":\"compile error\"")
                .contains("\"level\":\"error\"").endsWith("event: end\ndata: {}\n\n");
        String cursor = stream.body().lines().filter(l -> l.startsWith("id: ")).toList().get(1).substring(4);
        HttpResponse<String> resumed = web.stream("/dashboard/deployments/" + id + "/logs?after=" + cursor);
        assertThat(resumed.body()).doesNotContain("Build <started>").doesNotContain("compile error").contains("Deployment failed");

        // a failed deployment offers no Roll back, and a forged rollback of it is refused inline, as the API would (409)
        HttpResponse<String> project = web.get("/dashboard/projects/" + p.id());
        assertThat(project.body()).contains(id).doesNotContain("/dashboard/deployments/" + id + "/rollback");
        HttpResponse<String> refused = web.post("/dashboard/deployments/" + id + "/rollback", form("_csrf", csrf(project.body())));
        assertThat(refused.statusCode()).isEqualTo(409);
        assertThat(refused.body()).contains("Cannot roll back: Deployment " + id + " is failed; only a live or rolled_back deployment");

        WebClient other = signedIn(server.tenant(Tier.FREE));
        assertThat(other.stream("/dashboard/deployments/" + id + "/logs").statusCode()).isEqualTo(404);
        assertThat(other.get("/dashboard/deployments/" + id).statusCode()).isEqualTo(404);
    }

    /** The project page shows a pending domain's TXT record, and once it is proven, only that it is verified. */
    @Test
    void aProjectPageShowsThePendingDomainsTxtRecordUntilItIsVerified() {
        TestServer.Tenant tenant = server.tenant(Tier.FREE);
        WebClient web = signedIn(tenant);
        String domain = "shop-" + UUID.randomUUID().toString().substring(0, 8) + ".example.test";
        Project p = server.slipway().projects().create(new NewProject(tenant.account().id(),
                "dom-" + UUID.randomUUID().toString().substring(0, 8), "zip", null, null, "static", "us-east-1", domain, null));
        String token = p.domainCheck().token();
        HttpResponse<String> pending = web.get("/dashboard/projects/" + p.id());
        assertThat(pending.statusCode()).isEqualTo(200);
        assertThat(pending.body()).contains("data-domain-status=\"pending_verification\"")
                .contains("<code>_slipway-challenge." + domain + "</code>").contains(token);
        // another account's user sees nothing of it
        WebClient other = signedIn(server.tenant(Tier.FREE));
        HttpResponse<String> foreign = other.get("/dashboard/projects/" + p.id());
        assertThat(foreign.statusCode()).isEqualTo(404);
        assertThat(foreign.body()).doesNotContain(token).doesNotContain(domain);

        assertThat(server.slipway().projects().domainVerified(p.id(), token)).isTrue();
        HttpResponse<String> verified = web.get("/dashboard/projects/" + p.id());
        assertThat(verified.body()).contains("data-domain-status=\"verified\"").doesNotContain(token);
    }

    @Test
    void aProjectIsDeletedFromItsPageOnlyOnceItsNameIsTyped() {
        TestServer.Tenant tenant = server.tenant(Tier.FREE);
        WebClient web = signedIn(tenant);
        String name = "doomed-" + UUID.randomUUID().toString().substring(0, 8);
        Project p = server.slipway().projects().create(new NewProject(tenant.account().id(), name, "zip", null, null, "static",
                "us-east-1", null, null));
        assertThat(web.get("/dashboard/projects/" + p.id()).body()).contains("href=\"/dashboard/projects/" + p.id() + "/delete\"");
        HttpResponse<String> confirm = web.get("/dashboard/projects/" + p.id() + "/delete");
        assertThat(confirm.statusCode()).isEqualTo(200);
        assertThat(confirm.body()).contains("Type <strong>" + name + "</strong> to confirm");
        String token = csrf(confirm.body());
        String path = "/dashboard/projects/" + p.id() + "/delete";

        // another account's user cannot reach it; a wrong or missing name deletes nothing
        WebClient other = signedIn(server.tenant(Tier.FREE));
        assertThat(other.get(path).statusCode()).isEqualTo(404);
        assertThat(other.post(path, form("_csrf", csrf(other.get("/dashboard/projects").body()), "confirm_name", name))
                .statusCode()).isEqualTo(404);
        HttpResponse<String> wrong = web.post(path, form("_csrf", token, "confirm_name", name + "x"));
        assertThat(wrong.statusCode()).isEqualTo(422);
        assertThat(wrong.body()).contains("Type the project&#39;s name");
        assertThat(web.post(path, form("_csrf", token)).statusCode()).isEqualTo(422);
        assertThat(server.slipway().projects().find(p.id())).isPresent();

        HttpResponse<String> deleted = web.post(path, form("_csrf", token, "confirm_name", name));
        assertThat(deleted.statusCode()).isEqualTo(303);
        assertThat(deleted.headers().firstValue("location")).hasValue("/dashboard/projects?deleted=" + name);
        assertThat(server.slipway().projects().find(p.id())).isEmpty();
        assertThat(web.get("/dashboard/projects/" + p.id()).statusCode()).isEqualTo(404);
        assertThat(web.get("/dashboard/projects?deleted=" + name).body()).contains("Project " + name + " is being deleted");
    }

    @Test
    void aProjectWithoutAFrameworkShowsTheOneItsNewestBuildDetected() {
        TestServer.Tenant tenant = server.tenant(Tier.FREE);
        WebClient web = signedIn(tenant);
        Project p = server.slipway().projects().create(new NewProject(tenant.account().id(),
                "fw-" + UUID.randomUUID().toString().substring(0, 8), "zip", null, null, null, "us-east-1", null, null));
        assertThat(web.get("/dashboard/projects/" + p.id()).body()).contains("detected at each build");
        ArtifactStore artifacts = server.slipway().stores().artifacts();
        Instant at = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        artifacts.save(new Artifact("art_" + UUID.randomUUID().toString().replace("-", "").substring(0, 26), p.id(), "node",
                null, Path.of("/nonexistent"), List.of("node", "index.js"), null, at.minusSeconds(60)), 1, Duration.ofSeconds(1));
        artifacts.save(new Artifact("art_" + UUID.randomUUID().toString().replace("-", "").substring(0, 26), p.id(), "python-fastapi",
                null, Path.of("/nonexistent"), List.of("python3", "main.py"), null, at), 1, Duration.ofSeconds(1));
        assertThat(web.get("/dashboard/projects/" + p.id()).body()).contains("python-fastapi <span class=\"muted\">(detected)</span>");
    }

    /** The static-site fixture's files, by their path in it. */
    private static Map<String, byte[]> staticSite() {
        try {
            Path root = Path.of(DashboardHttpTest.class.getResource("/fixtures/static-plain").toURI());
            Map<String, byte[]> files = new TreeMap<>();
            try (Stream<Path> walk = Files.walk(root)) {
                for (Path p : walk.filter(Files::isRegularFile).toList()) {
                    files.put(root.relativize(p).toString().replace('\\', '/'), Files.readAllBytes(p));
                }
            }
            return files;
        } catch (IOException | URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] zip(Map<String, byte[]> files) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(bytes)) {
            for (var file : files.entrySet()) {
                zip.putNextEntry(new ZipEntry(file.getKey()));
                zip.write(file.getValue());
                zip.closeEntry();
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return bytes.toByteArray();
    }

    private static long uploadsOf(TestServer.Tenant tenant) {
        return server.slipway().database().jdbi().withHandle(h -> h.createQuery(
                "SELECT COUNT(*) FROM uploads WHERE account_id = :a").bind("a", tenant.account().id()).mapTo(Long.class).one());
    }

    /** The new-project page's upload form: its token, and the name and framework a person would type. */
    private static List<WebClient.Part> uploadForm(WebClient web, String name, WebClient.Part... files) {
        String page = web.get("/dashboard/projects/new").body();
        assertThat(page).contains("enctype=\"multipart/form-data\"").contains("webkitdirectory");
        List<WebClient.Part> parts = new ArrayList<>(List.of(WebClient.Part.field("_csrf", csrf(page)),
                WebClient.Part.field("name", name), WebClient.Part.field("framework", "auto"),
                WebClient.Part.field("root_directory", "")));
        parts.addAll(List.of(files));
        return parts;
    }

    /** Follows the form's redirect to the migration page, then waits on the API for the migration's first deployment to be live. */
    private static String awaitLive(WebClient web, TestServer.Tenant tenant, HttpResponse<String> created) {
        assertThat(created.statusCode()).as(created.body()).isEqualTo(303);
        String location = created.headers().firstValue("Location").orElseThrow();
        assertThat(location).startsWith("/dashboard/migrations/mig_");
        assertThat(web.get(location).statusCode()).isEqualTo(200);
        String migration = location.substring(location.lastIndexOf('/') + 1);
        JsonNode done = Statuses.await(tenant.http(), "migrations", migration, "complete", Duration.ofSeconds(60));
        assertThat(done.get("source").asText()).isEqualTo("zip");
        return done.get("url").asText();
    }

    @Test
    void aZipFromTheNewProjectFormGoesLive() {
        TestServer.Tenant tenant = server.tenant(Tier.TEAM);
        WebClient web = signedIn(tenant);
        String name = "zip-" + UUID.randomUUID().toString().substring(0, 8);
        HttpResponse<String> created = web.postMultipart("/dashboard/projects/new/upload", uploadForm(web, name,
                new WebClient.Part("zip", "site.zip", zip(staticSite())), new WebClient.Part("folder", "", new byte[0])));
        String url = awaitLive(web, tenant, created);
        assertThat(url).contains(name);
        assertThat(Apps.get(url + "/about").body()).contains("fixture:static-plain about");
        assertThat(uploadsOf(tenant)).isEqualTo(1);
    }

    @Test
    void aFolderFromTheNewProjectFormIsZippedAsItIsAndGoesLive() throws IOException {
        TestServer.Tenant tenant = server.tenant(Tier.TEAM);
        WebClient web = signedIn(tenant);
        List<WebClient.Part> files = new ArrayList<>(List.of(new WebClient.Part("zip", "", new byte[0])));
        // as Chrome sends a folder: one part per file, named by its path from the chosen folder
        staticSite().forEach((path, bytes) -> files.add(new WebClient.Part("folder", "my-site/" + path, bytes)));
        HttpResponse<String> created = web.postMultipart("/dashboard/projects/new/upload",
                uploadForm(web, "", files.toArray(WebClient.Part[]::new)));
        String url = awaitLive(web, tenant, created);
        assertThat(url).as("named after the folder").contains("my-site");
        assertThat(Apps.get(url + "/docs/").body()).contains("fixture:static-plain docs");
        String stored = server.slipway().database().jdbi().withHandle(h -> h.createQuery(
                "SELECT path FROM uploads WHERE account_id = :a").bind("a", tenant.account().id()).mapTo(String.class).one());
        try (ZipFile zip = new ZipFile(server.slipway().config().dataDir().resolve(stored).toFile())) {
            assertThat(zip.stream().map(ZipEntry::getName))
                    .containsExactlyInAnyOrderElementsOf(staticSite().keySet().stream().map(p -> "my-site/" + p).toList());
        }

        for (String hostile : List.of("my-site/../../etc/x", "/etc/passwd")) {
            HttpResponse<String> refused = web.postMultipart("/dashboard/projects/new/upload",
                    uploadForm(web, "", new WebClient.Part("folder", "my-site/index.html", "<p>hi</p>".getBytes()),
                            new WebClient.Part("folder", hostile, "x".getBytes())));
            assertThat(refused.statusCode()).isEqualTo(400);
            assertThat(refused.body()).contains(hostile.startsWith("/") ? "The folder has an absolute path: /etc/passwd"
                    : "The folder has a path that leaves it: my-site/../../etc/x");
        }
        assertThat(uploadsOf(tenant)).isEqualTo(1);
    }

    @Test
    void theUploadFormRefusesWhatTheApiRefusesAndStoresNothing() {
        TestServer.Tenant tenant = server.tenant(Tier.TEAM);
        WebClient web = signedIn(tenant);
        String path = "/dashboard/projects/new/upload";
        byte[] hostile = new Zips.Builder().file("index.html", "<p>hi</p>").file("../../etc/x", "owned").build();
        HttpResponse<String> zipSlip = web.postMultipart(path, uploadForm(web, "kept-name",
                new WebClient.Part("zip", "evil.zip", hostile)));
        assertThat(zipSlip.statusCode()).isEqualTo(400);
        assertThat(zipSlip.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/html"));
        assertThat(zipSlip.body()).contains("The zip has a path that leaves its folder: ../../etc/x")
                .contains("value=\"kept-name\"").contains("webkitdirectory").doesNotContain("Exception");
        assertThat(web.postMultipart(path, uploadForm(web, "", new WebClient.Part("zip", "notes.zip", "not a zip".getBytes())))
                .body()).contains("The upload is not a zip archive");
        HttpResponse<String> none = web.postMultipart(path, uploadForm(web, "", new WebClient.Part("zip", "", new byte[0]),
                new WebClient.Part("folder", "", new byte[0])));
        assertThat(none.statusCode()).isEqualTo(400);
        assertThat(none.body()).contains("Choose a .zip file or a folder to upload");
        HttpResponse<String> badName = web.postMultipart(path, uploadForm(web, "Not A Name!",
                new WebClient.Part("zip", "site.zip", zip(staticSite()))));
        assertThat(badName.statusCode()).isEqualTo(400);
        assertThat(badName.body()).contains("name must be");

        // no token, or another session's: refused before anything is stored
        List<WebClient.Part> forged = new ArrayList<>(uploadForm(web, "", new WebClient.Part("zip", "site.zip", zip(staticSite()))));
        forged.removeIf(p -> p.name().equals("_csrf"));
        for (List<WebClient.Part> parts : List.of(forged, List.of(WebClient.Part.field("_csrf", "forged"),
                new WebClient.Part("zip", "site.zip", zip(staticSite()))))) {
            HttpResponse<String> r = web.postMultipart(path, parts);
            assertThat(r.statusCode()).isEqualTo(403);
            assertThat(r.body()).contains("CSRF");
        }
        assertThat(new WebClient(server.baseUrl()).postMultipart(path, forged).headers().firstValue("Location"))
                .as("signed out: to sign in, unread").contains("/dashboard/sign-in?expired=1");
        assertThat(uploadsOf(tenant)).isZero();
    }

    /** A body announced larger than the upload limit is refused before it is read: the form again, with why. */
    @Test
    void anUploadOverTheLimitIsRefusedBeforeItIsRead() throws IOException {
        TestServer.Tenant tenant = server.tenant(Tier.TEAM);
        WebClient web = signedIn(tenant);
        URI base = URI.create(server.baseUrl());
        try (Socket socket = new Socket(base.getHost(), base.getPort())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(("POST /dashboard/projects/new/upload HTTP/1.1\r\nHost: " + base.getAuthority()
                    + "\r\nCookie: " + web.cookieHeader() + "\r\nContent-Type: multipart/form-data; boundary=x\r\n"
                    + "Content-Length: 10737418240\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            String answer = new String(socket.getInputStream().readNBytes(64 * 1024), StandardCharsets.UTF_8);
            assertThat(answer).startsWith("HTTP/1.1 413").contains("Request body is larger than").contains("webkitdirectory");
        }
        assertThat(uploadsOf(tenant)).isZero();
    }

    /** Not a gate on speed: prints how long the project page takes with 100 deployments. */
    @Test
    void measuresTheProjectPageWith100Deployments() {
        TestServer.Tenant tenant = server.tenant(Tier.FREE);
        WebClient web = signedIn(tenant);
        Project p = server.slipway().projects().create(new NewProject(tenant.account().id(),
                "bench-" + UUID.randomUUID().toString().substring(0, 8), "github", "acme/bench", "main", "node-express",
                "us-east-1", null, null));
        Instant t0 = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        var deployments = server.slipway().stores().deployments();
        deployments.jdbi().useTransaction(h -> {
            for (int i = 0; i < 100; i++) {
                deployments.insert(h, new Deployment("dep_bench" + i + UUID.randomUUID().toString().substring(0, 8),
                        tenant.account().id(), p.id(), null, "0123456789abcdef0123456789abcdef0123456" + (i % 10),
                        "commit number " + i, "main", i % 3 == 0 ? DeploymentStatus.FAILED : DeploymentStatus.QUEUED,
                        null, null, null, null, "us-east-1", "local", null, t0.plusMillis(i), null, null, false, null));
            }
        });
        String path = "/dashboard/projects/" + p.id() + "?limit=100";
        HttpResponse<String> page = web.get(path);
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("commit number 99").contains("commit number 0");
        for (int i = 0; i < 5; i++) web.get(path);
        int n = 20;
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) web.get(path);
        double ms = (System.nanoTime() - start) / 1e6 / n;
        long startDefault = System.nanoTime();
        for (int i = 0; i < n; i++) web.get("/dashboard/projects/" + p.id());
        double msDefault = (System.nanoTime() - startDefault) / 1e6 / n;
        String email = user(tenant);
        long signInStart = System.nanoTime();
        for (int i = 0; i < 5; i++) assertThat(new WebClient(server.baseUrl()).signIn(email, PASSWORD).statusCode()).isEqualTo(303);
        double msSignIn = (System.nanoTime() - signInStart) / 1e6 / 5;
        System.out.printf("[%s] project page, 100 deployments in one page: %.1f ms (%d KiB); default page of 20: %.1f ms; "
                + "sign-in (form + post, one Argon2id check): %.1f ms%n", kind, ms, page.body().length() / 1024, msDefault, msSignIn);
    }

    @Test
    void secureCookiesWhenThePublicAddressIsHttps() {
        try (TestServer https = TestServer.start(kind, c -> c.publicUrl("https://slipway.example"))) {
            WebClient web = new WebClient(https.baseUrl());
            HttpResponse<String> form = web.get("/dashboard/sign-in");
            assertThat(form.headers().allValues("Set-Cookie")).allSatisfy(c -> assertThat(c).contains("; Secure"));
        }
    }
}
