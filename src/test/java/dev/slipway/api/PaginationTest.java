package dev.slipway.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Tier;
import dev.slipway.projects.NewProject;
import dev.slipway.projects.Project;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.ServerPerStore;
import dev.slipway.testing.TestServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

@EachStore
@EndToEnd
class PaginationTest {
    @RegisterExtension
    static final ServerPerStore server = ServerPerStore.start();
    static TestServer.Tenant tenant;
    static List<String> created = new ArrayList<>();

    @EachStore.Before
    static void start() {
        tenant = server.tenant(Tier.FREE, 100_000);
        created.clear();
        for (int i = 0; i < 260; i++) created.add(newProject(tenant, "p" + i).id());
        // another account's projects never show up
        var other = server.tenant(Tier.TEAM);
        for (int i = 0; i < 5; i++) newProject(other, "other" + i);
    }

    static Project newProject(TestServer.Tenant t, String prefix) {
        String name = prefix + "-" + Long.toHexString(System.nanoTime());
        return server.slipway().projects().create(new NewProject(t.account().id(), name, "github", "acme/" + name,
                "main", null, "us-east-1", null, Map.of()));
    }

    private static List<String> ids(JsonNode page) {
        List<String> out = new ArrayList<>();
        page.get("data").forEach(n -> out.add(n.get("id").asText()));
        return out;
    }

    private static String cursorParam(String cursor) {
        return URLEncoder.encode(cursor, StandardCharsets.UTF_8);
    }

    @Test
    void walksEveryProjectNewestFirstWithoutGapsOrDuplicates() {
        List<String> seen = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            var r = tenant.http().get("/v1/projects?limit=7" + (cursor == null ? "" : "&cursor=" + cursorParam(cursor)));
            assertThat(r.status()).isEqualTo(200);
            JsonNode body = r.json();
            seen.addAll(ids(body));
            boolean hasMore = body.at("/pagination/has_more").asBoolean();
            cursor = body.at("/pagination/next_cursor").isNull() ? null : body.at("/pagination/next_cursor").asText();
            assertThat(hasMore).isEqualTo(cursor != null);
            pages++;
        } while (cursor != null);
        assertThat(pages).isEqualTo((260 + 6) / 7);
        assertThat(seen).hasSize(260).doesNotHaveDuplicates();
        assertThat(seen).containsExactlyElementsOf(created.reversed());
    }

    @Test
    void stableWhileRowsAreInserted() {
        var own = server.tenant(Tier.FREE, 100_000);
        List<String> before = new ArrayList<>();
        for (int i = 0; i < 120; i++) before.add(newProject(own, "s" + i).id());
        List<String> seen = new ArrayList<>();
        Set<String> insertedDuring = new HashSet<>();
        String cursor = null;
        do {
            var body = own.http().get("/v1/projects?limit=50" + (cursor == null ? "" : "&cursor=" + cursorParam(cursor))).json();
            seen.addAll(ids(body));
            insertedDuring.add(newProject(own, "late").id());
            cursor = body.at("/pagination/next_cursor").isNull() ? null : body.at("/pagination/next_cursor").asText();
        } while (cursor != null);
        assertThat(seen).doesNotHaveDuplicates().doesNotContainAnyElementsOf(insertedDuring);
        assertThat(seen).containsExactlyElementsOf(before.reversed());
    }

    @Test
    void defaultAndMaximumLimits() {
        assertThat(tenant.http().get("/v1/projects").json().get("data").size()).isEqualTo(20);
        assertThat(tenant.http().get("/v1/projects?limit=100").json().get("data").size()).isEqualTo(100);
        assertThat(tenant.http().get("/v1/projects?limit=1").json().get("data").size()).isEqualTo(1);
    }

    @Test
    void badLimitOrCursorIs400() {
        for (String q : new String[]{"limit=0", "limit=101", "limit=-1", "limit=abc", "limit=1.5",
                "cursor=not-a-cursor", "cursor=" + cursorParam("YWJj"), "cursor=%25%25"}) {
            Http.Response r = tenant.http().get("/v1/projects?" + q);
            ErrorsTest.assertError(r, 400, "invalid_request");
        }
    }
}
