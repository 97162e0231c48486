package dev.slipway.client.runs;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.client.api.Api;
import dev.slipway.client.api.JsonTrees;
import dev.slipway.client.api.RunKind;
import dev.slipway.client.context.Context;
import dev.slipway.client.context.Deadline;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

@Command(name = "rollback", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Put a deployment's exact build and env vars back in production (no rebuild).",
                "The target must be live or rolled_back and not production already."})
public final class RollbackCommand extends RunCommand {
    @Parameters(paramLabel = "DEPLOYMENT_ID", description = "The deployment to go back to (dep_…)")
    String target;

    @Mixin
    WaitOptions wait;

    RollbackCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected int execute() {
        String id = required(target, "DEPLOYMENT_ID");
        Deadline deadline = wait.deadline();
        try (Api api = api(deadline)) {
            JsonNode created = api.post(RunKind.DEPLOYMENT.path(id) + "/rollback", null, idempotencyKey() + "-rollback").path("data");
            String rollback = JsonTrees.text(created, "id");
            if (!output.json()) {
                String from = JsonTrees.text(created, "rolled_back_from");
                ctx.out().println("Rollback " + rollback + " " + JsonTrees.text(created, "status") + ": production goes back to "
                        + JsonTrees.text(created, "rolled_back_to") + (from == null ? "" : " (from " + from + ")"));
            }
            return started(api, wait, RunKind.DEPLOYMENT, rollback, created);
        }
    }
}
