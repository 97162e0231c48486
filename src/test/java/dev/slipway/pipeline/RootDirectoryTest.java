package dev.slipway.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.testing.Apps;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A monorepo from git: workspace members (installed at the workspace root; a server started in its folder, a
 * site built by the vite of the root's npm, pnpm or yarn install) and a plain site in another folder, each its own project by {@code root_directory}; names asked for, and the
 * root directories that are refused or missing. H2 only: it builds.
 */
@EndToEnd
class RootDirectoryTest {
    private static final Duration BUILD = Duration.ofMinutes(5);
    private static final String REPO = "acme/monorepo";

    @RegisterExtension
    static final GitDeploys deploys = new GitDeploys();

    @BeforeAll
    static void start() {
        deploys.push(REPO, FrameworksTest.fixture("monorepo"));
    }

    private static Http.Response migrate(String extra) {
        return deploys.runs().http().post("/v1/migrations", "{\"source\":\"github\",\"repo\":\"" + REPO + "\"" + extra + "}");
    }

    @Test
    void eachFolderOfAMonorepoIsItsOwnProjectWithTheNameAskedFor() {
        var api = migrate(",\"root_directory\":\"apps/api/\",\"name\":\"mono-api\"");
        assertThat(api.status()).as(api.body()).isEqualTo(201);
        var site = migrate(",\"root_directory\":\"frontend\"");
        assertThat(site.status()).as(site.body()).isEqualTo(201);
        String apiMigration = api.json().at("/data/id").asText();
        String siteMigration = site.json().at("/data/id").asText();

        assertThat(deploys.runs().await("migrations", apiMigration, "complete", BUILD).get("framework").asText()).isEqualTo("node");
        assertThat(deploys.runs().await("migrations", siteMigration, "complete", BUILD).get("framework").asText()).isEqualTo("static");
        assertThat(deploys.runs().messages("migrations", apiMigration))
                .anyMatch(m -> m.contains("Root directory: apps/api"))
                .anyMatch(m -> m.contains("Installing at the workspace root /; building in apps/api"));

        JsonNode apiProject = deploys.runs().http().get("/v1/projects/" + deploys.runs().projectOf(apiMigration)).json().get("data");
        assertThat(apiProject.get("name").asText()).isEqualTo("mono-api");
        assertThat(apiProject.get("root_directory").asText()).isEqualTo("apps/api");
        // the workspace's hoisted ms resolves from the member's folder, where the app runs
        assertThat(Apps.get(apiProject.get("url").asText()).body()).isEqualTo("fixture:monorepo-api 1m cwd=apps/api\n");

        JsonNode siteProject = deploys.runs().http().get("/v1/projects/" + deploys.runs().projectOf(siteMigration)).json().get("data");
        assertThat(siteProject.get("name").asText()).startsWith("monorepo");
        assertThat(Apps.get(siteProject.get("url").asText() + "/").body()).contains("fixture:monorepo-frontend");

        var taken = migrate(",\"root_directory\":\"apps/api\",\"name\":\"mono-api\"");
        assertThat(taken.status()).isEqualTo(400);
        assertThat(taken.body()).contains("name").contains("already taken");
    }

    @Test
    void aWorkspaceMemberBuildsInItsCellWithTheHoistedPackagesOfTheWorkspaceRootWithNpmPnpmAndYarn() {
        Map<String, String> migrations = new LinkedHashMap<>();
        for (String kind : List.of("npm", "pnpm", "yarn")) {
            String repo = kind.equals("npm") ? REPO : "acme/monorepo-" + kind;
            if (!kind.equals("npm")) deploys.push(repo, FrameworksTest.fixture("monorepo-" + kind));
            var web = deploys.runs().http().post("/v1/migrations", "{\"source\":\"github\",\"repo\":\"" + repo
                    + "\",\"root_directory\":\"apps/web\",\"name\":\"web-" + kind + "\"}");
            assertThat(web.status()).as(web.body()).isEqualTo(201);
            migrations.put(kind, web.json().at("/data/id").asText());
        }
        migrations.forEach((kind, id) -> {
            assertThat(deploys.runs().await("migrations", id, "complete", BUILD).get("framework").asText()).as(kind).isEqualTo("static");
            String url = deploys.runs().http().get("/v1/projects/" + deploys.runs().projectOf(id)).json().at("/data/url").asText();
            // vite, installed at the workspace root, built the member: its page now loads a bundled asset
            String marker = kind.equals("npm") ? "fixture:monorepo-web" : "fixture:monorepo-" + kind + "-web";
            assertThat(Apps.get(url + "/").body()).as(kind).contains(marker).contains("/assets/");
        });
    }

    @Test
    void aRootDirectoryOutsideTheSourceIsRefusedAndAMissingOneFailsWithItsName() {
        for (String bad : new String[] {"../etc", "/etc", "apps/../../x", "a b", "apps/./api"}) {
            var r = migrate(",\"root_directory\":\"" + bad + "\"");
            assertThat(r.status()).as(bad).isEqualTo(400);
            assertThat(r.body()).as(bad).contains("root_directory");
        }
        var missing = migrate(",\"root_directory\":\"apps/nope\"");
        assertThat(missing.status()).as(missing.body()).isEqualTo(201);
        String id = missing.json().at("/data/id").asText();
        deploys.runs().await("migrations", id, "failed", BUILD);
        assertThat(deploys.runs().messages("migrations", id)).anyMatch(m -> m.contains("the root directory apps/nope does not exist in the source"));
    }

}
