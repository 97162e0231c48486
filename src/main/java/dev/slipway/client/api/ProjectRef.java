package dev.slipway.client.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.client.context.UsageException;
import dev.slipway.core.Ids;

import java.util.Map;

/** A project as the user names it on the command line: its id ({@code prj_…}) or its name ({@code my-shop}). */
public final class ProjectRef {
    private ProjectRef() {}

    /** The project's id: {@code given} when it is one, else the id of the account's project of that name. */
    public static String resolve(Api api, String given) {
        String v = given.trim();
        if (Ids.wellFormed(v, "prj")) return v;
        for (JsonNode p : Pages.fetch(api, "/projects", Map.of(), null, true).items()) {
            if (v.equals(p.path("name").asText())) return p.path("id").asText();
        }
        throw new UsageException("no project of yours is named '" + v + "' ('slipway projects list' shows them; an id starts with prj_)");
    }

    /** The project's production deployment now; a usage error when it has none yet. */
    public static String production(Api api, String projectId) {
        JsonNode id = api.get("/projects/" + Paths.segment(projectId)).path("data").path("production_deployment_id");
        if (!id.isTextual()) throw new UsageException("the project has no production deployment yet");
        return id.asText();
    }
}
