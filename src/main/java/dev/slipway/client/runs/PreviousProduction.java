package dev.slipway.client.runs;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.client.api.Api;
import dev.slipway.client.api.JsonTrees;
import dev.slipway.client.api.Pages;
import dev.slipway.client.api.Paths;
import dev.slipway.client.api.ProjectRef;
import dev.slipway.client.context.UsageException;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The deployment that served a project's production last before the current one: of its deployments that a rollback
 * may target ({@code live} or {@code rolled_back}, not a preview, not production), the one that went live last.
 * After a rollback that is the deployment it replaced, so a second {@code slipway rollback PROJECT} undoes the first.
 */
final class PreviousProduction {
    private static final Set<String> TARGETS = Set.of("live", "rolled_back");

    private PreviousProduction() {}

    static String of(Api api, String projectId) {
        String production = ProjectRef.production(api, projectId);
        List<JsonNode> candidates = new ArrayList<>();
        for (JsonNode d : Pages.fetch(api, "/deployments", Map.of("project_id", projectId), null, true).items()) {
            String id = JsonTrees.text(d, "id");
            if (id != null && !id.equals(production) && JsonTrees.text(d, "live_at") != null && TARGETS.contains(JsonTrees.text(d, "status"))) {
                candidates.add(d);
            }
        }
        candidates.sort(Comparator.comparing((JsonNode d) -> Instant.parse(JsonTrees.text(d, "live_at"))).reversed());
        String best = null;
        for (JsonNode d : candidates) {
            // a list entry does not say whether it was a preview, which production never served: its read does
            String id = JsonTrees.text(d, "id");
            if (!"preview".equals(JsonTrees.text(api.get("/deployments/" + Paths.segment(id)).path("data"), "target"))) {
                best = id;
                break;
            }
        }
        if (best == null) throw new UsageException("the project has no earlier deployment to roll back to (slipway deployments list "
                + "--project " + projectId + " shows them)");
        return best;
    }
}
