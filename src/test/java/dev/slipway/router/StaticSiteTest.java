package dev.slipway.router;

import dev.slipway.testing.Http;
import dev.slipway.testing.TestStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class StaticSiteTest {
    static Path dir;
    static AppsListener listener;
    static AppsClient client;
    static final String HOST = "spa.localhost";

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("slipway-static-");
        Path site = Files.createDirectories(dir.resolve("site"));
        Files.writeString(site.resolve("index.html"), "<!doctype html><div id=root>spa</div>");
        Files.createDirectories(site.resolve("assets"));
        Files.writeString(site.resolve("assets/index-3f9a1c.js"), "console.log('app')");
        Files.writeString(site.resolve("assets/index-77b2e0.css"), "body{}");
        Files.write(site.resolve("favicon.ico"), new byte[]{0, 0, 1, 0});
        Files.writeString(site.resolve("robots.txt"), "User-agent: *");
        Path outside = Files.createDirectories(dir.resolve("outside"));
        Files.writeString(outside.resolve("secret.txt"), "TOP-SECRET");
        Files.createSymbolicLink(site.resolve("leak.txt"), outside.resolve("secret.txt"));
        Files.createSymbolicLink(site.resolve("leakdir"), outside);

        Path pages = Files.createDirectories(dir.resolve("pages"));
        Files.writeString(pages.resolve("index.html"), "home page");
        Files.writeString(pages.resolve("about.html"), "about page");
        Files.writeString(pages.resolve("404.html"), "the site's own 404");
        Files.createDirectories(pages.resolve("docs"));
        Files.writeString(pages.resolve("docs/index.html"), "docs index");
        Files.createDirectories(pages.resolve("_next/static/chunks"));
        Files.writeString(pages.resolve("_next/static/chunks/main-ab12.js"), "next chunk");
        Files.createSymbolicLink(pages.resolve("leak.html"), outside.resolve("secret.txt"));
        Path spaWith404 = Files.createDirectories(dir.resolve("spa404"));
        Files.writeString(spaWith404.resolve("index.html"), "spa index");
        Files.writeString(spaWith404.resolve("404.html"), "spa 404");

        RouteTable routes = new RouteTable("localhost");
        routes.setProduction("spa", new Target.StaticSite(site));
        routes.setProduction("pages", new Target.StaticSite(pages, false));
        routes.setProduction("spa404", new Target.StaticSite(spaWith404, true));
        routes.setProduction("ruled", new Target.StaticSite(pages, false, new SiteRules(
                List.of(new SiteRules.Header("/*", Map.of("X-Frame-Options", "DENY")),
                        new SiteRules.Header("/docs/*", Map.of("Cache-Control", "public, max-age=60", "Content-Type", "text/plain"))),
                List.of(new SiteRules.Redirect("/about", "https://elsewhere.example/about", 302),
                        new SiteRules.Redirect("/old/*", "/docs/:splat", 301)))));
        listener = AppsListener.start("127.0.0.1", 0, routes, port -> false);
        client = new AppsClient(listener.port());
    }

    @AfterAll
    static void stop() {
        listener.close();
        TestStore.deleteTree(dir);
    }

    @Test
    void indexIsServedAndRevalidated() {
        for (String path : new String[]{"/", "/index.html"}) {
            Http.Response r = client.get(HOST, path);
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).contains("spa");
            assertThat(r.header("Content-Type")).isEqualTo("text/html;charset=utf-8");
            assertThat(r.header("Cache-Control")).isEqualTo("no-cache");
            assertThat(r.header("ETag")).isNotBlank();
        }
    }

    @Test
    void hashedAssetsAreImmutableWithTheirContentTypes() {
        Http.Response js = client.get(HOST, "/assets/index-3f9a1c.js");
        assertThat(js.status()).isEqualTo(200);
        assertThat(js.body()).isEqualTo("console.log('app')");
        assertThat(js.header("Content-Type")).isEqualTo("text/javascript;charset=utf-8");
        assertThat(js.header("Cache-Control")).isEqualTo("public, max-age=31536000, immutable");
        assertThat(client.get(HOST, "/assets/index-77b2e0.css").header("Content-Type")).isEqualTo("text/css;charset=utf-8");
        assertThat(client.get(HOST, "/favicon.ico").header("Content-Type")).isEqualTo("image/vnd.microsoft.icon");
        assertThat(client.get(HOST, "/robots.txt").header("Content-Type")).isEqualTo("text/plain;charset=utf-8");
    }

    @Test
    void clientSideRoutesFallBackToIndexButMissingFilesAre404() {
        for (String path : new String[]{"/dashboard", "/users/42/settings", "/users/42/"}) {
            Http.Response r = client.get(HOST, path);
            assertThat(r.status()).as(path).isEqualTo(200);
            assertThat(r.body()).as(path).contains("spa");
            assertThat(r.header("Cache-Control")).isEqualTo("no-cache");
        }
        Http.Response page = client.send(client.request(HOST, "/profile/jane.doe").header("Accept", "text/html,*/*").GET());
        assertThat(page.status()).isEqualTo(200);
        assertThat(page.body()).contains("spa");
        assertThat(client.get(HOST, "/assets/index-000000.js").status()).isEqualTo(404);
        assertThat(client.get(HOST, "/missing.png").status()).isEqualTo(404);
    }

    @Test
    void nothingOutsideTheRootIsServed() throws Exception {
        assertThat(client.get(HOST, "/leak.txt").status()).as("link out of the root").isEqualTo(404);
        assertThat(client.get(HOST, "/leakdir/secret.txt").status()).isEqualTo(404);
        for (String target : new String[]{"/../outside/secret.txt", "/%2e%2e/outside/secret.txt",
                "/..%2foutside%2fsecret.txt", "/assets/../../outside/secret.txt", "/assets/%2e%2e/%2e%2e/outside/secret.txt",
                "/%2E%2E%5Coutside%5Csecret.txt", "/..\\outside\\secret.txt", "/....//outside/secret.txt"}) {
            String response = raw("GET " + target + " HTTP/1.1\r\nHost: " + HOST + "\r\nConnection: close\r\n\r\n");
            String status = response.substring(0, response.indexOf("\r\n"));
            assertThat(response).as(target + " -> " + status).doesNotContain("TOP-SECRET");
            assertThat(status).as(target).doesNotContain(" 200 ").satisfiesAnyOf(
                    s -> assertThat(s).contains(" 400 "), s -> assertThat(s).contains(" 404 "));
        }
    }

    @Test
    void conditionalHeadAndMethodRules() {
        Http.Response first = client.get(HOST, "/assets/index-3f9a1c.js");
        Http.Response again = client.send(client.request(HOST, "/assets/index-3f9a1c.js")
                .header("If-None-Match", first.header("ETag")).GET());
        assertThat(again.status()).isEqualTo(304);
        assertThat(again.body()).isEmpty();

        Http.Response head = client.send(client.request(HOST, "/index.html").method("HEAD", HttpRequest.BodyPublishers.noBody()));
        assertThat(head.status()).isEqualTo(200);
        assertThat(head.header("Content-Length")).isEqualTo(Long.toString("<!doctype html><div id=root>spa</div>".length()));
        assertThat(head.body()).isEmpty();

        Http.Response post = client.send(client.request(HOST, "/").POST(HttpRequest.BodyPublishers.ofString("x")));
        assertThat(post.status()).isEqualTo(405);
        assertThat(post.header("Allow")).isEqualTo("GET, HEAD");
    }

    private static String raw(String request) throws Exception {
        try (Socket s = new Socket("127.0.0.1", listener.port())) {
            s.setSoTimeout(5000);
            s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            s.getOutputStream().flush();
            InputStream in = s.getInputStream();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            in.transferTo(out);
            return out.toString(StandardCharsets.ISO_8859_1);
        }
    }

    @Test
    void aSiteOfPagesHasCleanUrlsAndServesItsOwn404WithStatus404() {
        assertThat(client.get("pages.localhost", "/about").body()).isEqualTo("about page");
        assertThat(client.get("pages.localhost", "/about.html").body()).isEqualTo("about page");
        assertThat(client.get("pages.localhost", "/docs").body()).isEqualTo("docs index");
        assertThat(client.get("pages.localhost", "/docs/").body()).isEqualTo("docs index");
        for (String missing : new String[]{"/nope", "/nope/", "/docs/missing", "/missing.css"}) {
            Http.Response r = client.get("pages.localhost", missing);
            assertThat(r.status()).as(missing).isEqualTo(404);
            assertThat(r.body()).as(missing).isEqualTo("the site's own 404");
            assertThat(r.header("Cache-Control")).isEqualTo("no-cache");
        }
        // a clean URL never reaches outside the site through a link
        assertThat(client.get("pages.localhost", "/leak").body()).doesNotContain("TOP-SECRET");
    }

    @Test
    void nextsHashedAssetsAreImmutableAndAMissingOneIsAPlain404() {
        Http.Response chunk = client.get("pages.localhost", "/_next/static/chunks/main-ab12.js");
        assertThat(chunk.body()).isEqualTo("next chunk");
        assertThat(chunk.header("Cache-Control")).isEqualTo("public, max-age=31536000, immutable");
        Http.Response missing = client.get("pages.localhost", "/_next/static/chunks/gone.js");
        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.body()).doesNotContain("the site's own 404");
    }

    @Test
    void aSinglePageAppWithA404PageGetsThePageNotTheFallback() {
        Http.Response r = client.get("spa404.localhost", "/client/route");
        assertThat(r.status()).isEqualTo(404);
        assertThat(r.body()).isEqualTo("spa 404");
    }

    @Test
    void aSitesRulesRedirectBeforeFilesAndSetItsHeadersOnEveryAnswer() {
        String host = "ruled.localhost";
        Http.Response about = client.get(host, "/about?x=1");
        assertThat(about.status()).as("a redirect comes before the file of the same path").isEqualTo(302);
        assertThat(about.header("Location")).isEqualTo("https://elsewhere.example/about?x=1");
        assertThat(about.header("X-Frame-Options")).isEqualTo("DENY");
        Http.Response old = client.get(host, "/old/index.html");
        assertThat(old.status()).isEqualTo(301);
        assertThat(old.header("Location")).isEqualTo("/docs/index.html");
        assertThat(client.get(host, "/old").header("Location")).isEqualTo("/docs/");
        assertThat(client.get(host, "/older").status()).as("a prefix ends at its slash").isEqualTo(404);

        Http.Response docs = client.get(host, "/docs/");
        assertThat(docs.status()).isEqualTo(200);
        assertThat(docs.header("Cache-Control")).isEqualTo("public, max-age=60");
        assertThat(docs.header("Content-Type")).isEqualTo("text/plain");
        assertThat(docs.header("X-Frame-Options")).isEqualTo("DENY");
        Http.Response home = client.get(host, "/");
        assertThat(home.header("Cache-Control")).isEqualTo("no-cache");
        Http.Response missing = client.get(host, "/nowhere");
        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.header("X-Frame-Options")).isEqualTo("DENY");
        Http.Response post = client.send(client.request(host, "/docs/").POST(HttpRequest.BodyPublishers.ofString("x")));
        assertThat(post.status()).isEqualTo(405);
        assertThat(post.header("X-Frame-Options")).isEqualTo("DENY");
    }
}
