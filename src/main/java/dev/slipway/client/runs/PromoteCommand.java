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

@Command(name = "promote", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Make a live preview production: its exact build, with production's env vars (no rebuild)."})
public final class PromoteCommand extends RunCommand {
    @Parameters(paramLabel = "DEPLOYMENT_ID", description = "The preview to promote (dep_…)")
    String preview;

    @Mixin
    WaitOptions wait;

    PromoteCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected int execute() {
        String id = required(preview, "DEPLOYMENT_ID");
        Deadline deadline = wait.deadline();
        try (Api api = api(deadline)) {
            JsonNode created = api.post(RunKind.DEPLOYMENT.path(id) + "/promote", null, idempotencyKey() + "-promote").path("data");
            String promotion = JsonTrees.text(created, "id");
            if (!output.json()) {
                ctx.out().println("Promotion " + promotion + " " + JsonTrees.text(created, "status") + ": the build of preview "
                        + JsonTrees.text(created, "rolled_back_to") + " becomes production");
            }
            return started(api, wait, RunKind.DEPLOYMENT, promotion, created);
        }
    }
}
