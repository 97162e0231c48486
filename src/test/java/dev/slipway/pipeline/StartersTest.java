package dev.slipway.pipeline;

import dev.slipway.testing.Apps;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Today's starters as their generators make them (src/test/resources/fixtures/starters, each with its lockfile),
 * migrated from git with nothing changed and built in the sandbox with real npm installs: SvelteKit (adapter-node
 * and adapter-static), NestJS, React Router (framework and SPA mode), Nuxt (which needs a newer Node than the
 * machine's), Hono (which listens on 3000 whatever $PORT says), Vue (create-vue), Fastify (fastify-cli) and Django
 * ({@code django-admin startproject}, Debian's Django). All are queued at once and built two at a time.
 * H2 only: slow.
 */
@EndToEnd
class StartersTest {
    private static final Duration BUILD = Duration.ofMinutes(10);
    private static final Map<String, String> MIGRATIONS = new LinkedHashMap<>();

    @RegisterExtension
    static final GitDeploys deploys = new GitDeploys();

    /** React Router's template ships a Dockerfile, which would win: its projects name the native kind. */
    private static final Map<String, String> FRAMEWORK = Map.of("react-router", "node", "react-router-spa", "static");

    @BeforeAll
    static void migrateAll() {
        for (String starter : List.of("nuxt", "nestjs", "react-router", "sveltekit-node", "hono", "react-router-spa", "sveltekit-static",
                "vue", "fastify", "django")) {
            String repo = "starters/" + starter;
            deploys.push(repo, files(starter));
            String framework = FRAMEWORK.get(starter);
            var r = deploys.runs().http().post("/v1/migrations", "{\"source\":\"github\",\"repo\":\"" + repo + "\""
                    + (framework == null ? "" : ",\"framework\":\"" + framework + "\"") + "}");
            assertThat(r.status()).as(r.body()).isEqualTo(201);
            MIGRATIONS.put(starter, r.json().at("/data/id").asText());
        }
    }

    /** The generator's files; React Router's SPA mode is its documented one-line change, {@code ssr: false}. */
    private static Map<String, byte[]> files(String starter) {
        if (!starter.equals("react-router-spa")) return FrameworksTest.fixture("starters/" + starter);
        Map<String, byte[]> files = new LinkedHashMap<>(FrameworksTest.fixture("starters/react-router"));
        String config = new String(files.get("react-router.config.ts"), StandardCharsets.UTF_8);
        assertThat(config).contains("ssr: true");
        files.put("react-router.config.ts", config.replace("ssr: true", "ssr: false").getBytes(StandardCharsets.UTF_8));
        return files;
    }

    private static String live(String starter) {
        String id = MIGRATIONS.get(starter);
        deploys.runs().await("migrations", id, "complete", BUILD);
        return deploys.runs().http().get("/v1/projects/" + deploys.runs().projectOf(id)).json().at("/data/url").asText();
    }

    private static List<String> log(String starter) {
        return deploys.runs().messages("migrations", MIGRATIONS.get(starter));
    }

    private static Http.Response get(String url) {
        return Apps.get(url);
    }

    @Test
    void sveltekitWithAdapterNodeIsAServerAndWithAdapterStaticASite() {
        String server = live("sveltekit-node");
        assertThat(log("sveltekit-node")).anyMatch(m -> m.contains("Detected framework node (SvelteKit with @sveltejs/adapter-node"))
                .anyMatch(m -> m.contains("Start: SvelteKit's server, with no start script: node build"));
        Http.Response page = get(server + "/");
        assertThat(page.status()).isEqualTo(200);
        assertThat(page.body()).contains("Welcome to SvelteKit").contains("data-sveltekit");
        assertThat(get(server + "/no-such-page").status()).as("SvelteKit's own 404, rendered by its server").isEqualTo(404);

        String site = live("sveltekit-static");
        assertThat(log("sveltekit-static")).anyMatch(m -> m.contains("Detected framework static (SvelteKit with @sveltejs/adapter-static"));
        assertThat(get(site + "/").body()).contains("Welcome to SvelteKit");
        assertThat(get(site + "/robots.txt").status()).isEqualTo(200);
    }

    @Test
    void nestjsRunsItsCompiledOutputOnTheNodeItsDependenciesNeed() {
        String url = live("nestjs");
        assertThat(log("nestjs")).anyMatch(m -> m.contains("Detected framework node (NestJS"))
                .anyMatch(m -> m.matches("info Node 22\\.\\d+\\.\\d+: .* requires node .* \\(package-lock.json\\) and the system's .* is older.*"))
                .anyMatch(m -> m.contains("Start: the start script `nest start` would build the app again")
                        && m.contains("start:prod (node dist/main)"));
        assertThat(get(url + "/").body()).isEqualTo("Hello World!");
    }

    @Test
    void reactRouterServesFromItsStartScriptAndItsSpaModeIsASite() {
        String server = live("react-router");
        Http.Response home = get(server + "/");
        assertThat(home.status()).isEqualTo(200);
        assertThat(home.body()).contains("<title>New React Router App</title>");
        assertThat(get(server + "/no-such-route").status()).as("its server renders the 404").isEqualTo(404);

        String spa = live("react-router-spa");
        assertThat(log("react-router-spa")).anyMatch(m -> m.contains("Static site: serving build/client/"));
        Http.Response shell = get(spa + "/");
        assertThat(shell.status()).isEqualTo(200);
        assertThat(get(spa + "/any/client/route").status()).as("an SPA: unknown paths get its index.html").isEqualTo(200);
    }

    @Test
    void nuxtIsANitroServerOnTheNodeItsDependenciesAskFor() {
        String url = live("nuxt");
        assertThat(log("nuxt")).anyMatch(m -> m.contains("Detected framework node (Nuxt"))
                .anyMatch(m -> m.matches("info Node 2\\d\\.\\d+\\.\\d+: .* requires node .*"))
                .noneMatch(m -> m.contains("EBADENGINE"));
        Http.Response page = get(url + "/");
        assertThat(page.status()).isEqualTo(200);
        assertThat(page.body()).contains("__nuxt");
    }

    @Test
    void honoListeningOn3000IsToldSoInSecondsAfterItsBuild() {
        String id = MIGRATIONS.get("hono");
        deploys.runs().await("migrations", id, "failed", BUILD);
        List<String> log = log("hono");
        assertThat(log).anyMatch(m -> m.contains("the app listens on port 3000, not on $PORT ("))
                .noneMatch(m -> m.contains("Dev dependencies kept"));
        var entries = deploys.runs().http().get("/v1/migrations/" + id + "/logs?limit=500").json().at("/data/logs");
        Instant checked = null;
        Instant failed = null;
        for (var e : entries) {
            String m = e.get("message").asText();
            if (checked == null && m.startsWith("Dropping dev dependencies")) checked = Instant.parse(e.get("timestamp").asText());
            if (m.contains("not on $PORT")) failed = Instant.parse(e.get("timestamp").asText());
        }
        assertThat(checked).as("the start check ran").isNotNull();
        assertThat(Duration.between(checked, failed)).as("told within seconds of the check").isLessThan(Duration.ofSeconds(20));
    }

    @Test
    void vueIsAStaticSiteOnTheNodeItsEnginesAskForAndFastifyAServerOnPort() {
        String site = live("vue");
        assertThat(log("vue")).anyMatch(m -> m.contains("Detected framework static"))
                .anyMatch(m -> m.matches("info engines\\.node \\^22\\.18\\.0 \\|\\| >=24\\.12\\.0 in package\\.json → Node \\d+\\.\\d+\\.\\d+"));
        Http.Response page = get(site + "/");
        assertThat(page.status()).isEqualTo(200);
        assertThat(page.body()).contains("<div id=\"app\"></div>").contains("/assets/");
        assertThat(get(site + "/about").status()).as("a single-page app: its routes get index.html").isEqualTo(200);

        String server = live("fastify");
        assertThat(log("fastify")).anyMatch(m -> m.contains("Detected framework node"));
        assertThat(get(server + "/").body()).isEqualTo("{\"root\":true}");
        assertThat(get(server + "/example").body()).isEqualTo("this is an example");
    }

    @Test
    void djangoAsStartprojectMadeItServesItsWelcomePageAndItsAdmin() {
        String url = live("django");
        assertThat(log("django")).anyMatch(m -> m.contains("Detected framework python"))
                .anyMatch(m -> m.contains("mysite.wsgi") && m.contains("gunicorn"));
        Http.Response welcome = get(url + "/");
        assertThat(welcome.status()).isEqualTo(200);
        assertThat(welcome.body()).contains("The install worked successfully!");
        Http.Response login = get(url + "/admin/login/");
        assertThat(login.status()).as("a server-rendered route of its admin").isEqualTo(200);
        assertThat(login.body()).contains("csrfmiddlewaretoken");
    }
}
