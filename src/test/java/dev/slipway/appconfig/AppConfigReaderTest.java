package dev.slipway.appconfig;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code slipway.toml} as documented is read whole; every kind of mistake is reported at once, at its line. */
class AppConfigReaderTest {
    static final String DOCUMENTED = """
            [build]
            command = "npm run build"        # optional; the kind's default otherwise
            [run]
            command = "node server.js"       # the web process (a Procfile's web: line is the same thing)
            replicas = 2
            [health]
            path = "/healthz"
            [[cron]]
            name = "tick"
            schedule = "* * * * *"
            command = "node tick.js"
            [[volumes]]
            name = "data"
            path = "/data"
            size_mb = 64
            shared = true                    # required when replicas > 1
            """;

    @Test
    void theDocumentedShapeIsReadWhole() {
        AppConfigReader.Result r = AppConfigReader.read(DOCUMENTED);
        assertThat(r.problems()).isEmpty();
        AppConfig c = r.config();
        assertThat(c.build().command()).isEqualTo("npm run build");
        assertThat(c.run().command()).isEqualTo("node server.js");
        assertThat(c.run().replicas()).isEqualTo(2);
        assertThat(c.health().path()).isEqualTo("/healthz");
        assertThat(c.cron()).containsExactly(new AppConfig.Cron("tick", "* * * * *", "node tick.js", null));
        assertThat(c.volumes()).containsExactly(new AppConfig.Volume("data", "/data", 64, true));
    }

    @Test
    void everyMistakeIsReportedAtItsLine() {
        String file = """
                [run]
                comand = "node server.js"
                replicas = 50
                [health]
                path = 5
                [[cron]]
                name = "never"
                schedule = "0 0 31 2 *"
                command = "true"
                [[cron]]
                name = "never"
                schedule = "every minute"
                command = "true"
                [[volumes]]
                name = "root"
                path = "/"
                size_mb = 10
                [[volumes]]
                name = "escape"
                path = "/data/../../etc"
                size_mb = 10
                [[volumes]]
                name = "kernel"
                path = "/proc/self"
                size_mb = "ten"
                [sideways]
                x = 1
                """;
        AppConfigReader.Result r = AppConfigReader.read(file);
        assertThat(r.ok()).isFalse();
        List<String> shown = r.problems().stream().map(ConfigProblem::toString).toList();
        assertThat(shown).anyMatch(p -> p.startsWith("line 2: unknown key `comand` in run"))
                .anyMatch(p -> p.startsWith("line 3: run.replicas must be between 1 and 10, got 50"))
                .anyMatch(p -> p.startsWith("line 5: health.path must be a string"))
                .anyMatch(p -> p.startsWith("line 8: cron[0].schedule `0 0 31 2 *` never fires"))
                .anyMatch(p -> p.startsWith("line 11: cron[1].name `never` is used twice"))
                .anyMatch(p -> p.startsWith("line 12: cron[1].schedule `every minute` is not a 5-field cron expression"))
                .anyMatch(p -> p.startsWith("line 16: volumes[0].path cannot be /"))
                .anyMatch(p -> p.startsWith("line 20: volumes[1].path must be a plain absolute path"))
                .anyMatch(p -> p.startsWith("line 24: volumes[2].path cannot be in /proc"))
                .anyMatch(p -> p.startsWith("line 25: volumes[2].size_mb must be an integer"))
                .anyMatch(p -> p.startsWith("line 26: unknown key `sideways`"));
    }

    @Test
    void aSyntaxErrorNamesItsLineAndReplicasNeedSharedVolumes() {
        AppConfigReader.Result broken = AppConfigReader.read("[run]\ncommand = \"node\"\nreplicas = \n");
        assertThat(broken.problems()).hasSize(1);
        assertThat(broken.problems().getFirst().line()).isEqualTo(3);
        assertThat(broken.problems().getFirst().message()).startsWith("not valid TOML");

        AppConfigReader.Result unshared = AppConfigReader.read("""
                [run]
                replicas = 2
                [[volumes]]
                name = "data"
                path = "/data"
                size_mb = 8
                """);
        assertThat(unshared.problems()).extracting(ConfigProblem::toString)
                .anyMatch(p -> p.startsWith("line 3: volumes[0] is mounted by 2 replicas at once: say shared = true"));
    }

    @Test
    void aSitesHeadersAndRedirectsAreCheckedForWhatTheRouterWouldWrite() {
        AppConfigReader.Result good = AppConfigReader.read("""
                [[headers]]
                path = "/assets/*"
                values = { "Cache-Control" = "public, max-age=600", "Access-Control-Allow-Origin" = "*" }
                [[redirects]]
                from = "/blog/*"
                to = "https://blog.example.com/:splat"
                status = 301
                """);
        assertThat(good.problems()).isEmpty();
        assertThat(good.config().redirects()).containsExactly(new AppConfig.Redirect("/blog/*", "https://blog.example.com/:splat", 301));
        assertThat(new RepoConfig(good.config()).siteRules().redirect("/blog/a/b", "q=1").location())
                .isEqualTo("https://blog.example.com/a/b?q=1");

        AppConfigReader.Result bad = AppConfigReader.read("""
                [[headers]]
                path = "assets/*"
                values = { "X-Ok" = "line\\nSet-Cookie: a=b", "Transfer-Encoding" = "chunked", "a:b" = "v" }
                [[headers]]
                path = "/x/*/y"
                [[redirects]]
                from = "/a"
                to = "//evil.example"
                status = 300
                """);
        assertThat(bad.problems()).extracting(ConfigProblem::toString)
                .anyMatch(p -> p.startsWith("line 2: headers[0].path must be a path from /"))
                .anyMatch(p -> p.startsWith("line 3: headers[0].values.X-Ok must not hold a control character"))
                .anyMatch(p -> p.startsWith("line 3: Transfer-Encoding is set by the router"))
                .anyMatch(p -> p.startsWith("line 3: `a:b` is not a header name"))
                .anyMatch(p -> p.startsWith("line 5: headers[1].path must be a path from /"))
                .anyMatch(p -> p.contains("headers[1].values is required"))
                .anyMatch(p -> p.startsWith("line 8: redirects[0].to must be a path from / or an http(s):// URL"))
                .anyMatch(p -> p.startsWith("line 9: redirects[0].status must be 301, 302, 307 or 308"));
    }
}
