package dev.slipway.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Tier;
import dev.slipway.core.Ids;
import dev.slipway.core.MicrosClock;
import dev.slipway.deployments.Deployment;
import dev.slipway.deployments.DeploymentStatus;
import dev.slipway.migrations.Migration;
import dev.slipway.migrations.MigrationStatus;
import dev.slipway.projects.NewProject;
import dev.slipway.projects.Project;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.ServerPerStore;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * GET /v1/deployments and /v1/migrations over 260+ rows each (written straight into the stores):
 * keyset pages with no gap and no duplicate, newest first, filters alone and combined, bad input.
 */
@EachStore
@EndToEnd
class ListsTest {
    private static final int ROWS = 264;

    @RegisterExtension
    static final ServerPerStore server = ServerPerStore.start();
    static Http http;
    static Project first, second, foreign;
    static List<Deployment> deployments;
    static List<Migration> migrations;

    @EachStore.Before
    static void start() {
        var tenant = server.tenant(Tier.TEAM, 100_000);
        http = tenant.http();
        var stranger = server.tenant(Tier.TEAM);
        first = project(tenant.account().id(), "lists-a");
        second = project(tenant.account().id(), "lists-b");
        foreign = project(stranger.account().id(), "lists-x");
        Ids ids = new Ids(MicrosClock.system());
        Instant base = Instant.now().truncatedTo(ChronoUnit.MICROS);
        DeploymentStatus[] dStatuses = DeploymentStatus.values();
        MigrationStatus[] mStatuses = MigrationStatus.values();
        deployments = new ArrayList<>();
        migrations = new ArrayList<>();
        List<Deployment> foreignDeployments = new ArrayList<>();
        for (int i = 0; i < ROWS; i++) {
        // groups of three rows share a created_at: the id breaks the tie, across page boundaries too
        Instant at = base.minusMillis(1000L * (i / 3));
        Project p = i % 2 == 0 ? first : second;
        deployments.add(deployment(ids.next("dep"), p, dStatuses[i % dStatuses.length], at));
        migrations.add(new Migration(ids.next("mig"), p.accountId(), p.id(), null, "github", p.repo(), "main",
        "node-express", null, null, null, null, mStatuses[i % mStatuses.length], at, at, null));
        if (i % 20 == 0) foreignDeployments.add(deployment(ids.next("dep"), foreign, DeploymentStatus.LIVE, at));
        }
        var stores = server.slipway().stores();
        stores.deployments().jdbi().useTransaction(h -> {
        for (Deployment d : deployments) stores.deployments().insert(h, d);
        for (Deployment d : foreignDeployments) stores.deployments().insert(h, d);
        for (Migration m : migrations) stores.migrations().insert(h, m);
        stores.migrations().insert(h, new Migration(ids.next("mig"), foreign.accountId(), foreign.id(), null, "github",
        foreign.repo(), "main", null, null, null, null, null, MigrationStatus.COMPLETE, base, base, base));
        });
    }

    private static Project project(String accountId, String prefix) {
        String name = prefix + "-" + Long.toHexString(System.nanoTime());
        return server.slipway().projects().create(new NewProject(accountId, name, "github", "acme/" + name, "main",
                null, "us-east-1", null, Map.of()));
    }

    private static Deployment deployment(String id, Project p, DeploymentStatus status, Instant at) {
        return new Deployment(id, p.accountId(), p.id(), null, "a".repeat(40), "commit " + id, "main", status, null,
                null, null, null, "us-east-1", "local", null, at, status == DeploymentStatus.LIVE ? at : null, null, false, null);
    }

    /** Newest first: created_at descending, then id descending. */
    private static <T> List<String> expected(List<T> rows, Function<T, Instant> at,
                                             Function<T, String> id, Predicate<T> filter) {
        return rows.stream().filter(filter)
                .sorted(Comparator.comparing(at).thenComparing(id).reversed()).map(id).toList();
    }

    /** Walks every page of {@code path} (which has a query string) and checks each page's shape. */
    private static List<String> walk(String path, int limit) {
        List<String> out = new ArrayList<>();
        String cursor = null;
        Instant previous = null;
        for (int pages = 0; pages < 1000; pages++) {
            var r = http.get(path + (limit > 0 ? "&limit=" + limit : "") + (cursor == null ? "" : "&cursor=" + cursor));
            assertThat(r.status()).as(r.body()).isEqualTo(200);
            JsonNode page = r.json();
            int expectedSize = limit > 0 ? limit : 20;
            for (JsonNode n : page.get("data")) {
                out.add(n.get("id").asText());
                Instant at = Instant.parse(n.get("created_at").asText());
                if (previous != null) assertThat(at).as("newest first").isBeforeOrEqualTo(previous);
                previous = at;
            }
            boolean more = page.at("/pagination/has_more").asBoolean();
            if (!more) {
                assertThat(page.get("data").size()).isLessThanOrEqualTo(expectedSize);
                assertThat(page.at("/pagination/next_cursor").isNull()).as("no cursor on the last page").isTrue();
                return out;
            }
            assertThat(page.get("data").size()).isEqualTo(expectedSize);
            cursor = page.at("/pagination/next_cursor").asText();
        }
        throw new AssertionError("more than 1000 pages");
    }

    @Test
    void deploymentPagesCoverEveryRowOnceNewestFirst() {
        List<String> all = expected(deployments, Deployment::createdAt, Deployment::id, d -> true);
        assertThat(all).hasSize(ROWS);
        for (int limit : new int[]{100, 37, 1, 0}) {
            List<String> walked = walk("/v1/deployments?", limit);
            assertThat(walked).as("limit " + limit).isEqualTo(all);
            assertThat(new HashSet<>(walked)).hasSize(ROWS);
        }
        // one project
        assertThat(walk("/v1/deployments?project_id=" + first.id(), 25))
                .isEqualTo(expected(deployments, Deployment::createdAt, Deployment::id, d -> d.projectId().equals(first.id())));
    }

    @Test
    void deploymentFiltersCombine() {
        for (DeploymentStatus status : DeploymentStatus.values()) {
            assertThat(walk("/v1/deployments?status=" + status.label(), 9)).as(status.label())
                    .isEqualTo(expected(deployments, Deployment::createdAt, Deployment::id, d -> d.status() == status))
                    .isNotEmpty();
            for (Project p : List.of(first, second)) {
                List<String> both = walk("/v1/deployments?status=" + status.label() + "&project_id=" + p.id(), 7);
                assertThat(both).as(status.label() + " of " + p.name()).isEqualTo(expected(deployments,
                        Deployment::createdAt, Deployment::id, d -> d.status() == status && d.projectId().equals(p.id())));
            }
        }
        // the other account's rows never show up, and its project is not this key's to list
        Set<String> everything = new HashSet<>(walk("/v1/deployments?", 100));
        assertThat(everything).hasSize(ROWS);
        assertThat(http.get("/v1/deployments?project_id=" + foreign.id()).status()).isEqualTo(403);
        assertThat(http.get("/v1/deployments?project_id=prj_00000000000000000000000000").status()).isEqualTo(404);
    }

    @Test
    void migrationPagesAndStatusFilter() {
        List<String> all = expected(migrations, Migration::createdAt, Migration::id, m -> true);
        for (int limit : new int[]{100, 33, 0}) {
            assertThat(walk("/v1/migrations?", limit)).as("limit " + limit).isEqualTo(all);
        }
        for (MigrationStatus status : MigrationStatus.values()) {
            assertThat(walk("/v1/migrations?status=" + status.label(), 11)).as(status.label())
                    .isEqualTo(expected(migrations, Migration::createdAt, Migration::id, m -> m.status() == status))
                    .isNotEmpty();
        }
    }

    @Test
    void aRowCreatedWhilePagingNeitherShiftsNorRepeatsTheRest() {
        List<String> all = expected(deployments, Deployment::createdAt, Deployment::id, d -> true);
        JsonNode page1 = http.get("/v1/deployments?limit=50").json();
        // a deployment created between two page reads is newer than the cursor: it is not in later pages
        String newer = insertNewest(first);
        List<String> seen = new ArrayList<>();
        page1.get("data").forEach(n -> seen.add(n.get("id").asText()));
        String cursor = page1.at("/pagination/next_cursor").asText();
        while (cursor != null) {
            JsonNode page = http.get("/v1/deployments?limit=50&cursor=" + cursor).json();
            page.get("data").forEach(n -> seen.add(n.get("id").asText()));
            cursor = page.at("/pagination/has_more").asBoolean() ? page.at("/pagination/next_cursor").asText() : null;
        }
        assertThat(seen).isEqualTo(all).doesNotContain(newer);
        assertThat(http.get("/v1/deployments?limit=1").json().at("/data/0/id").asText()).isEqualTo(newer);
        // it is not part of the other tests' rows
        server.slipway().stores().deployments().jdbi().useHandle(h ->
                h.createUpdate("DELETE FROM deployments WHERE id = :id").bind("id", newer).execute());
    }

    private static String insertNewest(Project p) {
        String id = new Ids(MicrosClock.system()).next("dep");
        server.slipway().stores().deployments().jdbi().useTransaction(h -> server.slipway().stores().deployments()
                .insert(h, deployment(id, p, DeploymentStatus.FAILED, Instant.now().truncatedTo(ChronoUnit.MICROS))));
        return id;
    }

    private static String cursorOf(String raw) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(raw.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void badQueriesAre400() {
        for (String path : List.of("/v1/deployments?status=done", "/v1/deployments?status=LIVE", "/v1/deployments?status=pending",
                "/v1/migrations?status=live", "/v1/migrations?status=done",
                "/v1/deployments?limit=0", "/v1/deployments?limit=101", "/v1/deployments?limit=abc",
                "/v1/migrations?limit=0", "/v1/migrations?limit=101",
                "/v1/deployments?cursor=not-a-cursor", "/v1/migrations?cursor=not-a-cursor",
                "/v1/deployments?cursor=%25%25%25garbage", "/v1/migrations?cursor=%25%25%25garbage",
                "/v1/projects?cursor=%25%25%25garbage", "/v1/webhooks?cursor=%25%25%25garbage",
                "/v1/deployments?cursor=" + cursorOf("c1|9223372036854775807|dep_x"),
                "/v1/projects?cursor=" + cursorOf("c1|-5|prj_x"), "/v1/migrations?cursor=" + cursorOf("c2|1|mig_x"))) {
            var r = http.get(path);
            assertThat(r.status()).as(path + ": " + r.body()).isEqualTo(400);
            assertThat(r.json().at("/error/code").asText()).isEqualTo("invalid_request");
            String field = path.substring(path.indexOf('?') + 1, path.indexOf('='));
            assertThat(r.json().at("/error/details/" + field).isMissingNode()).as(path + " names " + field).isFalse();
        }
    }
}
