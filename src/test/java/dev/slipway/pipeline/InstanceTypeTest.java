package dev.slipway.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Tier;
import dev.slipway.testing.Await;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.ServerPerStore;
import dev.slipway.testing.Zips;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code instance_type} on migrations and deployments: checked against the table and the tier, defaulted
 * from the tier, kept by later deployments and rollbacks, and applied to the app's cgroup.
 */
@EachStore
@EndToEnd
class InstanceTypeTest {
    @RegisterExtension
    static final ServerPerStore server = ServerPerStore.start();

    @Test
    void unknownTypesAndTypesAboveTheTierAreRefusedAndNothingIsCreated() {
        Http free = server.tenant(Tier.FREE).http();
        String upload = ZipMigrationTest.upload(free, ZipMigrationTest.zip("x"));
        var unknown = free.post("/v1/migrations", "{\"source\":\"zip\",\"upload_id\":\"" + upload + "\",\"instance_type\":\"huge\"}");
        assertThat(unknown.status()).as(unknown.body()).isEqualTo(400);
        assertThat(unknown.json().at("/error/code").asText()).isEqualTo("invalid_request");
        assertThat(unknown.json().at("/error/message").asText())
                .contains("instance_type").contains("starter, standard, performance");
        var above = free.post("/v1/migrations", "{\"source\":\"zip\",\"upload_id\":\"" + upload + "\",\"instance_type\":\"standard\"}");
        assertThat(above.status()).as(above.body()).isEqualTo(400);
        assertThat(above.json().at("/error/message").asText()).contains("instance_type").contains("free tier");
        var notAString = free.post("/v1/migrations", "{\"source\":\"zip\",\"upload_id\":\"" + upload + "\",\"instance_type\":2}");
        assertThat(notAString.status()).isEqualTo(400);
        assertThat(free.get("/v1/migrations").json().get("data").size()).isZero();
        assertThat(free.get("/v1/projects").json().get("data").size()).isZero();

        // a project's own type and root directory (PATCH): checked as on a migration; nothing changes on a refusal
        String project = free.post("/v1/projects", "{\"source\":\"zip\"}").json().at("/data/id").asText();
        for (String[] bad : new String[][]{{"{\"instance_type\":\"huge\"}", "starter, standard, performance"},
                {"{\"instance_type\":\"standard\"}", "free tier"}, {"{\"instance_type\":3}", "must be a string"},
                {"{\"root_directory\":\"../etc\"}", "without '..'"},
                {"{\"root_directory\":\"apps/web\",\"instance_type\":\"huge\"}", "instance_type"}}) {
            var r = free.send("PATCH", "/v1/projects/" + project, "application/json", bad[0].getBytes());
            assertThat(r.status()).as(r.body()).isEqualTo(400);
            assertThat(r.json().at("/error/message").asText()).as(bad[0]).contains(bad[1]);
        }
        JsonNode unchanged = free.get("/v1/projects/" + project).json().get("data");
        assertThat(unchanged.get("instance_type").isNull()).isTrue();
        assertThat(unchanged.get("root_directory").isNull()).isTrue();
        var ok = free.send("PATCH", "/v1/projects/" + project, "application/json",
                "{\"instance_type\":\"starter\",\"root_directory\":\"apps/web/\"}".getBytes());
        assertThat(ok.status()).as(ok.body()).isEqualTo(200);
        assertThat(ok.json().at("/data/instance_type").asText()).isEqualTo("starter");
        assertThat(ok.json().at("/data/root_directory").asText()).isEqualTo("apps/web");
        var cleared = free.send("PATCH", "/v1/projects/" + project, "application/json",
                "{\"instance_type\":null,\"root_directory\":\".\"}".getBytes());
        assertThat(cleared.json().at("/data/instance_type").isNull()).as(cleared.body()).isTrue();
        assertThat(cleared.json().at("/data/root_directory").isNull()).isTrue();
    }

    @Test
    void theTierGivesTheDefaultAndADeploymentKeepsOrChangesItsType() {
        // free: starter by default, and a deployment may not go above it
        Runs free = new Runs(server.tenant(Tier.FREE).http());
        String freeMigration = ZipMigrationTest.migrateZip(free, ZipMigrationTest.upload(free.http(), ZipMigrationTest.zip("f1")));
        String freeProject = free.projectOf(freeMigration);
        assertThat(free.deployment(free.firstDeployment(freeProject)).get("instance_type").asText()).isEqualTo("starter");
        var tooBig = free.http().post("/v1/deployments", "{\"project_id\":\"" + freeProject + "\",\"instance_type\":\"performance\"}");
        assertThat(tooBig.status()).as(tooBig.body()).isEqualTo(400);
        assertThat(tooBig.json().at("/error/message").asText()).contains("'performance' is not available on the free tier");

        // team: a migration asks for standard; it is what the app's cgroup allows
        Runs team = new Runs(server.tenant(Tier.TEAM).http());
        String mark = "it-" + System.nanoTime();
        var migrated = team.http().post("/v1/migrations", "{\"source\":\"zip\",\"framework\":\"node-express\",\"upload_id\":\""
                + ZipMigrationTest.upload(team.http(), ZipMigrationTest.zip("t1"))
                + "\",\"instance_type\":\"standard\",\"env_vars\":{\"TYPE_MARK\":\"" + mark + "\"}}");
        assertThat(migrated.status()).as(migrated.body()).isEqualTo(201);
        String projectId = team.awaitMigration(migrated.json().at("/data/id").asText(), "complete").get("project_id").asText();
        String first = team.firstDeployment(projectId);
        assertThat(team.deployment(first).get("instance_type").asText()).isEqualTo("standard");
        assertThat(memoryLimitOfCell(mark, first)).isEqualTo(512L * 1024 * 1024);
        assertThat(cpuQuotaOfCell(mark, first)).as("half a core, its start's boost over once it answered").isEqualTo(50_000);

        // a later deployment without a type keeps production's; one with a type takes it
        String kept = deploy(team, projectId, "");
        assertThat(team.awaitDeployment(kept, "live").get("instance_type").asText()).isEqualTo("standard");
        String bigger = deploy(team, projectId, ",\"instance_type\":\"performance\"");
        assertThat(team.awaitDeployment(bigger, "live").get("instance_type").asText()).isEqualTo("performance");
        assertThat(memoryLimitOfCell(mark, bigger)).isEqualTo(2048L * 1024 * 1024);

        // a rollback keeps its target's type
        var rollback = team.http().send("POST", "/v1/deployments/" + first + "/rollback", null, null);
        assertThat(rollback.status()).as(rollback.body()).isEqualTo(201);
        String rollbackId = rollback.json().at("/data/id").asText();
        JsonNode rolled = team.awaitDeployment(rollbackId, "live");
        assertThat(rolled.get("instance_type").asText()).isEqualTo("standard");
        assertThat(memoryLimitOfCell(mark, rollbackId, first)).isEqualTo(512L * 1024 * 1024);

        // the project's own type is what its next deployments take over production's, until it is cleared
        var patched = team.http().send("PATCH", "/v1/projects/" + projectId, "application/json",
                "{\"instance_type\":\"performance\"}".getBytes());
        assertThat(patched.status()).as(patched.body()).isEqualTo(200);
        assertThat(patched.json().at("/data/instance_type").asText()).isEqualTo("performance");
        String own = deploy(team, projectId, "");
        assertThat(team.awaitDeployment(own, "live").get("instance_type").asText()).isEqualTo("performance");
        assertThat(memoryLimitOfCell(mark, own)).isEqualTo(2048L * 1024 * 1024);
    }

    @Test
    void aRepositorysSlipwayTomlChoosesTheTypeUnlessTheRequestOrTheProjectDoes() {
        Runs team = new Runs(server.tenant(Tier.TEAM).http());
        String mark = "toml-" + System.nanoTime();
        Map<String, String> files = new LinkedHashMap<>(NodeApp.version("toml-type"));
        files.put("slipway.toml", "[run]\ninstance_type = \"standard\"\n");
        String upload = upload(team.http(), files);
        var migrated = team.http().post("/v1/migrations", "{\"source\":\"zip\",\"framework\":\"node-express\",\"upload_id\":\""
                + upload + "\",\"env_vars\":{\"TYPE_MARK\":\"" + mark + "\"}}");
        assertThat(migrated.status()).as(migrated.body()).isEqualTo(201);
        String projectId = team.awaitMigration(migrated.json().at("/data/id").asText(), "complete").get("project_id").asText();
        String first = team.firstDeployment(projectId);
        assertThat(team.deployment(first).get("instance_type").asText()).isEqualTo("standard");
        assertThat(memoryLimitOfCell(mark, first)).isEqualTo(512L * 1024 * 1024);
        assertThat(team.messages("deployments", first)).contains("info Instance type: standard (slipway.toml [run] instance_type)");

        // the request's type wins over the file's
        var asked = team.http().post("/v1/deployments", "{\"project_id\":\"" + projectId + "\",\"upload_id\":\""
                + upload(team.http(), files) + "\",\"instance_type\":\"performance\"}");
        String askedId = asked.json().at("/data/id").asText();
        assertThat(team.awaitDeployment(askedId, "live").get("instance_type").asText()).isEqualTo("performance");
        assertThat(memoryLimitOfCell(mark, askedId)).isEqualTo(2048L * 1024 * 1024);

        // a free account's file asking for more than its tier fails the deployment, saying so
        Runs free = new Runs(server.tenant(Tier.FREE).http());
        var over = free.http().post("/v1/migrations", "{\"source\":\"zip\",\"framework\":\"node-express\",\"upload_id\":\""
                + upload(free.http(), files) + "\"}");
        JsonNode failed = free.awaitMigration(over.json().at("/data/id").asText(), "failed");
        String refused = free.firstDeployment(failed.get("project_id").asText());
        assertThat(free.messages("deployments", refused))
                .anyMatch(m -> m.contains("slipway.toml [run] instance_type 'standard' is not available on the free tier (it allows starter)"));
        assertThat(free.deployment(refused).get("instance_type").asText()).isEqualTo("starter");

        // and so does a volume larger than its tier's
        files.put("slipway.toml", "[[volumes]]\nname = \"data\"\npath = \"/data\"\nsize_mb = 2048\n");
        var big = free.http().post("/v1/migrations", "{\"source\":\"zip\",\"framework\":\"node-express\",\"upload_id\":\""
                + upload(free.http(), files) + "\"}");
        JsonNode noRoom = free.awaitMigration(big.json().at("/data/id").asText(), "failed");
        assertThat(free.messages("deployments", free.firstDeployment(noRoom.get("project_id").asText())))
                .anyMatch(m -> m.contains("Cannot make the volume data of 2048 MB (slipway.toml [[volumes]] size_mb): the free tier's volumes hold at most 1024 MB"));
    }

    private static String upload(Http http, Map<String, String> files) {
        var r = http.send("POST", "/v1/uploads", "application/zip", Zips.of(files));
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().at("/data/id").asText();
    }

    private static String deploy(Runs who, String projectId, String extra) {
        String upload = ZipMigrationTest.upload(who.http(), ZipMigrationTest.zip("again"));
        var r = who.http().post("/v1/deployments", "{\"project_id\":\"" + projectId + "\",\"upload_id\":\"" + upload + "\"" + extra + "}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().at("/data/id").asText();
    }

    /**
     * The memory limit, from its cgroup (v1 or v2), of the cell of one of these deployments whose processes
     * carry the mark (a rollback may adopt its target's warm cell).
     */
    private static long memoryLimitOfCell(String mark, String... deploymentIds) {
        return Long.parseLong(ofCell(mark, "memory", "memory.limit_in_bytes", "memory.max", deploymentIds));
    }

    /** The CPU quota of that cell, in microseconds of a 100 ms period. */
    private static long cpuQuotaOfCell(String mark, String... deploymentIds) {
        return Long.parseLong(ofCell(mark, "cpu", "cpu.cfs_quota_us", "cpu.max", deploymentIds).split(" ")[0]);
    }

    /** A file of that cell's cgroup: the v1 controller's {@code v1} file, or the group's {@code v2} one. */
    private static String ofCell(String mark, String controller, String v1, String v2, String... deploymentIds) {
        Set<Path> cells = new HashSet<>();
        Await.until(Duration.ofSeconds(20), "a cell of " + String.join(" or ", deploymentIds) + " carrying " + mark, () -> {
            cells.clear();
            for (long pid : Runs.processesWithEnv("TYPE_MARK", mark)) {
                cgroupFile(pid, controller, v1, v2).filter(f -> Arrays.stream(deploymentIds)
                        .anyMatch(id -> f.getParent().getFileName().toString().endsWith("." + id))).ifPresent(cells::add);
            }
            return cells.size() == 1;
        });
        try {
            return Files.readString(cells.iterator().next()).trim();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Optional<Path> cgroupFile(long pid, String controller, String v1, String v2) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "cgroup"))) {
                String[] parts = line.split(":", 3);
                if (!parts[2].contains("/slipway/")) continue;
                if (Arrays.asList(parts[1].split(",")).contains(controller)) {
                    return Optional.of(Path.of("/sys/fs/cgroup", parts[1], parts[2], v1));
                }
                if (parts[0].equals("0") && parts[1].isEmpty()) return Optional.of(Path.of("/sys/fs/cgroup", parts[2], v2));
            }
        } catch (IOException gone) {
            // the process ended between the listing and the read
        }
        return Optional.empty();
    }
}
