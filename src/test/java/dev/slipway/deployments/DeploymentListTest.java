package dev.slipway.deployments;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Tier;
import dev.slipway.projects.NewProject;
import dev.slipway.projects.Project;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.ServerPerStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The deployment list names each row's own project (one lookup for the page, whatever the number of projects). */
@EachStore
@EndToEnd
class DeploymentListTest {
    @RegisterExtension
    static final ServerPerStore server = ServerPerStore.start();

    @Test
    void everyRowHasItsOwnProjectsAddress() {
        var tenant = server.tenant(Tier.TEAM);
        Map<String, String> projectOf = new HashMap<>();   // deployment id → project name
        Instant at = Instant.now().truncatedTo(ChronoUnit.MILLIS).minusSeconds(3600);
        int n = 0;
        for (int p = 0; p < 12; p++) {
            String name = "list-" + p + "-" + Long.toHexString(System.nanoTime());
            Project project = server.slipway().projects().create(new NewProject(tenant.account().id(), name, "zip",
                    null, null, "node-express", "us-east-1", null, Map.of()));
            for (int i = 0; i < 3; i++) {
                String id = String.format("dep_%026d", ++n);
                Deployment d = new Deployment(id, tenant.account().id(), project.id(), null, null, null, null,
                        DeploymentStatus.LIVE, null, null, null, null, "us-east-1", "local", 1, at.plusSeconds(n),
                        at.plusSeconds(n), at.plusSeconds(n), false, null);
                server.slipway().stores().deployments().jdbi().useHandle(h -> server.slipway().stores().deployments().insert(h, d));
                projectOf.put(id, name);
            }
        }
        JsonNode page = tenant.http().get("/v1/deployments?limit=100").json();
        assertThat(page.get("data").size()).isEqualTo(36);
        for (JsonNode row : page.get("data")) {
            String id = row.get("id").asText();
            assertThat(row.get("url").asText())
                    .startsWith("http://" + projectOf.get(id) + "-" + id.substring(id.length() - 8) + ".");
        }
    }
}
