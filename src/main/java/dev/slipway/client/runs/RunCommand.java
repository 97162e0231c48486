package dev.slipway.client.runs;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.client.api.Api;
import dev.slipway.client.api.JsonTrees;
import dev.slipway.client.api.RunKind;
import dev.slipway.client.command.ClientCommand;
import dev.slipway.client.command.Exit;
import dev.slipway.client.context.Context;
import dev.slipway.client.context.Deadline;

import java.util.function.Function;

/**
 * The shape of deploy, migrate and rollback: create a run, then give it back at once or wait for its end.
 * Each declares its own {@link WaitOptions} after its options, where {@code --help} lists them.
 */
abstract class RunCommand extends ClientCommand {
    RunCommand(Context ctx) {
        super(ctx);
    }

    /** POSTs a deployment's {@code action} (rollback, promote), tells what it made, then gives it back as {@link #started}. */
    int act(WaitOptions wait, String deploymentId, String action, Function<JsonNode, String> told) {
        return act(wait, api -> deploymentId, action, told);
    }

    /** As above, the deployment found with the command's API client ({@code target}). */
    int act(WaitOptions wait, Function<Api, String> target, String action, Function<JsonNode, String> told) {
        Deadline deadline = wait.deadline();
        try (Api api = api(deadline)) {
            String deploymentId = target.apply(api);
            JsonNode created = api.post(RunKind.DEPLOYMENT.path(deploymentId) + "/" + action, null, idempotencyKey() + "-" + action)
                    .path("data");
            if (!output.json()) ctx.out().println(told.apply(created));
            return started(api, wait, RunKind.DEPLOYMENT, JsonTrees.text(created, "id"), created);
        }
    }

    /** Without --wait or --follow: exit 0, with the created run on stdout for --output json; else its final state's code. */
    int started(Api api, WaitOptions wait, RunKind kind, String id, JsonNode created) {
        if (!wait.waiting()) {
            if (output.json()) output.print(ctx, created);
            return Exit.OK;
        }
        return Runs.finish(ctx, api, kind, id, wait, output);
    }
}
