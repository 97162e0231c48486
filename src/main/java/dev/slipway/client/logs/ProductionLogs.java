package dev.slipway.client.logs;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.client.api.Api;
import dev.slipway.client.api.JsonTrees;
import dev.slipway.client.api.ProjectRef;
import dev.slipway.client.api.RunKind;
import dev.slipway.client.context.Context;
import dev.slipway.client.context.UsageException;

import java.time.Duration;
import java.util.function.Consumer;

/**
 * A project's production log: the log of the deployment that serves production, where its app writes (a warm
 * rollback's deployment too: the app it switched to writes there from then on). Followed, it moves to each next
 * production deployment as it goes live, from the first line of its log, and says so on stderr.
 */
final class ProductionLogs {
    /** How often a project is read again while it has no production deployment, or while production did not move. */
    private static final Duration LOOK_AGAIN = Duration.ofSeconds(1);

    private final Api api;
    private final Context ctx;
    private final boolean json;

    ProductionLogs(Api api, Context ctx, boolean json) {
        this.api = api;
        this.ctx = ctx;
        this.json = json;
    }

    /** Follows production until the deadline or an interrupt. */
    void follow(String projectId) {
        Consumer<JsonNode> print = e -> ctx.out().println(json ? JsonTrees.compact(e) : LogLines.format(e));
        String shown = null;
        while (true) {
            String production = production(projectId);
            if (production == null || production.equals(shown)) {
                api.deadline().sleep(LOOK_AGAIN, "waiting for the project's " + (shown == null ? "first" : "next") + " production deployment");
                continue;
            }
            ctx.err().println((shown == null ? "following production: " : "production is now ") + production);
            shown = production;
            new LogFollower(api, ctx).follow(RunKind.DEPLOYMENT.path(production) + "/logs?until=stopped", print,
                    "following the production log of " + projectId);
        }
    }

    /** Null while there is none yet: a follow waits for the first. */
    private String production(String projectId) {
        try {
            return ProjectRef.production(api, projectId);
        } catch (UsageException none) {
            return null;
        }
    }
}
