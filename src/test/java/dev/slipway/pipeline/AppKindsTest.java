package dev.slipway.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.testing.Apps;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The generic kinds, built for real from fixtures pushed to a git server: a Koa server ({@code node}), a
 * Flask app through gunicorn ({@code python}), FastAPI in {@code app/main.py} and behind a Procfile with a
 * bare {@code uvicorn}, and three static sites (vanilla Vite, Next's static export, plain HTML) with their
 * 404 pages, clean URLs and asset caching; then redeploys and rollbacks of each cheap one. H2 only: slow.
 */
@EndToEnd
class AppKindsTest {
    private static final Duration BUILD = Duration.ofMinutes(10);

    @RegisterExtension
    static final GitDeploys deploys = new GitDeploys();
    static final Map<String, String> migrations = new LinkedHashMap<>();
    static String hostile;
    static final String SITE_RULES = """
            [[headers]]
            path = "/*"
            values = { "X-Frame-Options" = "DENY", "X-Site" = "all" }
            [[headers]]
            path = "/docs/*"
            values = { "Cache-Control" = "public, max-age=60", "X-Site" = "docs" }
            [[redirects]]
            from = "/old-about"
            to = "/about"
            status = 301
            [[redirects]]
            from = "/blog/*"
            to = "/docs/:splat"
            """;
    static final String HOSTILE_RULES = "[[headers]]\npath = \"/*\"\nvalues = { \"X-A\" = \"a\\r\\nSet-Cookie: stolen=1\" }\n"
            + "[[headers]]\npath = \"/x\"\nvalues = { \"Content-Length\" = \"0\", \"Bad Name\" = \"v\" }\n"
            + "[[redirects]]\nfrom = \"/go\"\nto = \"javascript:alert(1)\"\n";

    @BeforeAll
    static void start() {
        Map<String, byte[]> procfile = new LinkedHashMap<>(FrameworksTest.fixture("fastapi"));
        procfile.put("Procfile", "web: uvicorn main:app --host 127.0.0.1 --port $PORT\n".getBytes(StandardCharsets.UTF_8));
        for (String f : new String[] {"koa", "flask", "fastapi-layout", "vite-vanilla", "next-export"}) {
            migrations.put(f, migrate(f, FrameworksTest.fixture(f)));
        }
        Map<String, byte[]> plain = new LinkedHashMap<>(FrameworksTest.fixture("static-plain"));
        plain.put("slipway.toml", SITE_RULES.getBytes(StandardCharsets.UTF_8));
        migrations.put("static-plain", migrate("static-plain", plain));
        // hostile: a header value that would end the header and start one of its own, and headers the router frames with
        Map<String, byte[]> smuggler = new LinkedHashMap<>(FrameworksTest.fixture("static-plain"));
        smuggler.put("slipway.toml", HOSTILE_RULES.getBytes(StandardCharsets.UTF_8));
        hostile = migrate("static-hostile", smuggler);
        migrations.put("fastapi-procfile", migrate("fastapi-procfile", procfile));
        Map<String, String> detected = Map.of("koa", "node", "flask", "python", "fastapi-layout", "python-fastapi",
                "fastapi-procfile", "python-fastapi", "static-plain", "static", "vite-vanilla", "static", "next-export", "static");
        migrations.forEach((fixture, id) -> {
            JsonNode done = deploys.runs().await("migrations", id, "complete", BUILD);
            assertThat(done.get("framework").asText()).as(fixture).isEqualTo(detected.get(fixture));
        });
        deploys.runs().await("migrations", hostile, "failed", BUILD);
    }

    private static String migrate(String name, Map<String, byte[]> files) {
        String repo = "kinds/" + name;
        deploys.push(repo, files);
        var r = deploys.runs().http().post("/v1/migrations", "{\"source\":\"github\",\"repo\":\"" + repo + "\"}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().at("/data/id").asText();
    }

    private static String url(String fixture) {
        return deploys.runs().http().get("/v1/projects/" + deploys.runs().projectOf(migrations.get(fixture))).json().at("/data/url").asText();
    }

    @Test
    void nodeAndPythonServersOfAnyFrameworkAnswer() {
        assertThat(Apps.get(url("koa")).body()).startsWith("fixture:koa node=v");
        assertThat(Apps.get(url("flask")).body()).isEqualTo("fixture:flask\n");
        assertThat(deploys.runs().messages("migrations", migrations.get("flask")))
                .anyMatch(m -> m.contains("Serving app:app from app.py with gunicorn (WSGI)"));
        assertThat(Apps.get(url("fastapi-layout")).body()).isEqualTo("fixture:fastapi-layout\n");
        assertThat(deploys.runs().messages("migrations", migrations.get("fastapi-layout")))
                .anyMatch(m -> m.contains("Serving app.main:app from app/main.py with uvicorn (ASGI)"));
        // a bare uvicorn (not on PATH in the sandbox) runs as the venv's python -m uvicorn
        assertThat(Apps.get(url("fastapi-procfile")).body()).startsWith("fixture:fastapi ");
        assertThat(deploys.runs().messages("migrations", migrations.get("fastapi-procfile")))
                .anyMatch(m -> m.contains("Start command:") && m.contains("-m uvicorn main:app"));
    }

    @Test
    void aPlainSiteHasCleanUrlsAndItsOwn404Page() {
        String site = url("static-plain");
        assertThat(Apps.get(site + "/").body()).contains("<title>fixture:static-plain</title>");
        Http.Response about = Apps.get(site + "/about");
        assertThat(about.status()).isEqualTo(200);
        assertThat(about.body()).contains("fixture:static-plain about");
        assertThat(Apps.get(site + "/docs").body()).contains("fixture:static-plain docs");
        assertThat(Apps.get(site + "/docs/").body()).contains("fixture:static-plain docs");
        Http.Response missing = Apps.get(site + "/no/such/page");
        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.body()).contains("fixture:static-plain not found");
        assertThat(missing.header("Cache-Control")).isEqualTo("no-cache");
        assertThat(missing.header("X-Site")).isEqualTo("all");
    }

    @Test
    void aSitesOwnHeadersAndRedirectsFromItsSlipwayToml() {
        String site = url("static-plain");
        Http.Response home = Apps.get(site + "/");
        assertThat(home.header("X-Frame-Options")).isEqualTo("DENY");
        assertThat(home.header("X-Site")).isEqualTo("all");
        assertThat(home.header("Cache-Control")).isEqualTo("no-cache");
        Http.Response docs = Apps.get(site + "/docs/");
        assertThat(docs.body()).contains("fixture:static-plain docs");
        assertThat(docs.header("X-Site")).as("a later rule wins").isEqualTo("docs");
        assertThat(docs.header("Cache-Control")).as("the site's own over the router's").isEqualTo("public, max-age=60");
        assertThat(docs.header("X-Frame-Options")).isEqualTo("DENY");

        Http.Response moved = Apps.get(site + "/old-about?ref=mail");
        assertThat(moved.status()).isEqualTo(301);
        assertThat(moved.header("Location")).isEqualTo("/about?ref=mail");
        Http.Response splat = Apps.get(site + "/blog/index.html");
        assertThat(splat.status()).isEqualTo(308);
        assertThat(splat.header("Location")).isEqualTo("/docs/index.html");
        assertThat(Apps.get(site + "/blog").header("Location")).isEqualTo("/docs/");
        assertThat(Apps.get(site + "/about").status()).isEqualTo(200);
        assertThat(deploys.runs().messages("migrations", migrations.get("static-plain")))
                .noneMatch(m -> m.contains("not applied"));
    }

    @Test
    void aHostileSiteCannotWriteHeadersOfItsOwnIntoAnswers() {
        var log = deploys.runs().messages("migrations", hostile);
        assertThat(log).anyMatch(m -> m.contains("slipway.toml line 3: headers[0].values.X-A must not hold a control character"))
                .anyMatch(m -> m.contains("slipway.toml line 6: Content-Length is set by the router, not by a site"))
                .anyMatch(m -> m.contains("slipway.toml line 6: `Bad Name` is not a header name"))
                .anyMatch(m -> m.contains("slipway.toml line 9: redirects[0].to must be a path from / or an http(s):// URL"));
        String project = deploys.runs().projectOf(hostile);
        String address = deploys.runs().http().get("/v1/projects/" + project).json().at("/data/url").asText();
        Http.Response r = Apps.get(address + "/");
        assertThat(r.status()).as("nothing was served: " + r.body()).isEqualTo(404);
        assertThat(r.header("Set-Cookie")).isNull();
    }

    @Test
    void aViteSiteWithoutReactIsASinglePageApp() {
        String site = url("vite-vanilla");
        Http.Response index = Apps.get(site + "/");
        assertThat(index.body()).contains("<title>fixture:vite-vanilla</title>");
        Matcher asset = Pattern.compile("src=\"(/assets/[^\"]+\\.js)\"").matcher(index.body());
        assertThat(asset.find()).as(index.body()).isTrue();
        Http.Response script = Apps.get(site + asset.group(1));
        assertThat(script.body()).contains("fixture:vite-vanilla");
        assertThat(script.header("Cache-Control")).isEqualTo("public, max-age=31536000, immutable");
        Http.Response route = Apps.get(site + "/client/route");
        assertThat(route.status()).isEqualTo(200);
        assertThat(route.body()).isEqualTo(index.body());
        assertThat(Apps.get(site + "/assets/missing.js").status()).isEqualTo(404);
    }

    @Test
    void aNextStaticExportIsServedAsFilesWithItsPagesAnd404() {
        String site = url("next-export");
        Http.Response home = Apps.get(site + "/");
        assertThat(home.status()).isEqualTo(200);
        assertThat(home.body()).contains("fixture:next-export home");
        assertThat(Apps.get(site + "/about").body()).contains("fixture:next-export about");
        Http.Response missing = Apps.get(site + "/nowhere");
        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.body()).contains("fixture:next-export not found");
        Matcher asset = Pattern.compile("(/_next/static/[^\"]+\\.js)\"").matcher(home.body());
        assertThat(asset.find()).as(home.body()).isTrue();
        Http.Response script = Apps.get(site + asset.group(1));
        assertThat(script.status()).isEqualTo(200);
        assertThat(script.header("Cache-Control")).isEqualTo("public, max-age=31536000, immutable");
        assertThat(deploys.runs().messages("migrations", migrations.get("next-export")))
                .noneMatch(m -> m.contains("next start"));
    }

    @Test
    void eachKindRedeploysAndRollsBack() {
        Map<String, String[]> changes = Map.of(
                "koa", new String[] {"server.js", "fixture:koa", "fixture:koa-v2"},
                "flask", new String[] {"app.py", "fixture:flask", "fixture:flask-v2"},
                "fastapi-layout", new String[] {"app/main.py", "fixture:fastapi-layout", "fixture:fastapi-layout-v2"},
                "static-plain", new String[] {"about.html", "fixture:static-plain about", "fixture:static-plain about-v2"});
        Map<String, String> second = new LinkedHashMap<>();
        changes.forEach((fixture, change) -> {
            String file = new String(FrameworksTest.fixture(fixture).get(change[0]), StandardCharsets.UTF_8);
            deploys.git().commit("kinds/" + fixture, "main", Map.of(change[0], file.replace(change[1], change[2])), "v2");
            second.put(fixture, deploys.runs().deploy(deploys.runs().projectOf(migrations.get(fixture))));
        });
        second.forEach((fixture, id) -> {
            deploys.runs().await("deployments", id, "live", BUILD);
            String path = fixture.equals("static-plain") ? "/about" : "/";
            assertThat(Apps.get(url(fixture) + path).body()).as(fixture).contains(changes.get(fixture)[2]);
            String first = deploys.runs().firstDeployment(deploys.runs().projectOf(migrations.get(fixture)));
            var rollback = deploys.runs().http().send("POST", "/v1/deployments/" + first + "/rollback", null, null);
            assertThat(rollback.status()).as(rollback.body()).isEqualTo(201);
            deploys.runs().await("deployments", rollback.json().at("/data/id").asText(), "live", BUILD);
            String body = Apps.get(url(fixture) + path).body();
            assertThat(body).as(fixture).contains(changes.get(fixture)[1]).doesNotContain(changes.get(fixture)[2]);
            if (fixture.equals("static-plain")) {
                assertThat(Apps.get(url(fixture) + "/old-about").header("Location")).as("rules kept by the rollback").isEqualTo("/about");
            }
        });
    }
}
