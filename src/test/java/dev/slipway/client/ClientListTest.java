package dev.slipway.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Tier;
import dev.slipway.projects.NewProject;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.ServerPerStore;
import dev.slipway.testing.TestServer;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Lists: one page, --all across pages (following cursors), tables and JSON. */
@EachStore
@Timeout(value = 2, unit = TimeUnit.MINUTES)
@EndToEnd
class ClientListTest {
    static final int PROJECTS = 135;

    @RegisterExtension
    static final ServerPerStore server = ServerPerStore.start();
    static TestServer.Tenant tenant;
    static Map<String, String> env;
    static List<String> created = new ArrayList<>();

    @EachStore.Before
    static void start() {
        tenant = server.tenant(Tier.TEAM);
        env = Map.of("SLIPWAY_API_URL", server.baseUrl(), "SLIPWAY_API_KEY", tenant.key());
        created.clear();
        for (int i = 0; i < PROJECTS; i++) {
            String name = "p" + i + "-" + Long.toHexString(System.nanoTime());
            created.add(server.slipway().projects().create(new NewProject(tenant.account().id(), name, "github",
                    "acme/" + name, "main", null, "us-east-1", null, Map.of())).id());
        }
        // another account's project never shows up
        var other = server.tenant(Tier.TEAM);
        server.slipway().projects().create(new NewProject(other.account().id(), "other-" + Long.toHexString(System.nanoTime()),
                "github", "acme/other", "main", null, "us-east-1", null, Map.of()));
    }

    static List<String> ids(JsonNode list) {
        List<String> out = new ArrayList<>();
        list.forEach(p -> out.add(p.get("id").asText()));
        return out;
    }

    @Test
    void allFollowsTheCursorsAcrossPages() {
        Cli.Result r = Cli.run(env, "projects", "list", "--all", "--output", "json");
        assertThat(r.exit()).as(r.toString()).isEqualTo(0);
        List<String> ids = ids(r.json());
        assertThat(ids).hasSize(PROJECTS).doesNotHaveDuplicates();
        assertThat(ids).isEqualTo(created.reversed()); // newest first, nothing skipped
        assertThat(r.err()).isEmpty();

        Cli.Result small = Cli.run(env, "projects", "list", "--all", "--limit", "7", "--output", "json");
        assertThat(ids(small.json())).isEqualTo(ids);
    }

    @Test
    void withoutAllOnePageAndANoteThatThereIsMore() {
        Cli.Result r = Cli.run(env, "projects", "list", "--output", "json");
        assertThat(r.exit()).isEqualTo(0);
        assertThat(ids(r.json())).isEqualTo(created.reversed().subList(0, 20));
        assertThat(r.err()).contains("(more: --all lists every page)");
        Cli.Result limited = Cli.run(env, "projects", "list", "--limit", "3", "--output", "json");
        assertThat(ids(limited.json())).isEqualTo(created.reversed().subList(0, 3));
    }

    @Test
    void theTableHasAHeaderAndARowPerProject() {
        Cli.Result r = Cli.run(env, "projects", "list", "--all", "--limit", "50");
        assertThat(r.exit()).isEqualTo(0);
        List<String> lines = List.of(r.out().split("\n"));
        assertThat(lines).hasSize(PROJECTS + 1);
        assertThat(lines.get(0)).matches("ID\\s+NAME\\s+SOURCE\\s+REPO\\s+PRODUCTION\\s+URL");
        List<String> first = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] cols = line.split("\\s+");
            assertThat(cols).hasSize(6);
            assertThat(cols[2]).isEqualTo("github");
            assertThat(cols[4]).isEqualTo("-"); // nothing deployed
            first.add(cols[0]);
        }
        assertThat(new HashSet<>(first)).isEqualTo(new HashSet<>(created));
    }

    @Test
    void showPrintsTheApisData() {
        String id = created.get(5);
        Cli.Result r = Cli.run(env, "projects", "show", id, "--output", "json");
        assertThat(r.exit()).isEqualTo(0);
        assertThat(r.json()).isEqualTo(tenant.http().get("/v1/projects/" + id).json().get("data"));
        Cli.Result text = Cli.run(env, "projects", "show", id);
        assertThat(text.out()).containsPattern("(?m)^id\\s+" + id + "$").containsPattern("(?m)^env_vars\\s+-$");
        Cli.Result none = Cli.run(env, "deployments", "list", "--project", id, "--output", "json");
        assertThat(none.exit()).isEqualTo(0);
        assertThat(none.json().isArray()).isTrue();
        assertThat(none.json().size()).isZero();
    }
}
