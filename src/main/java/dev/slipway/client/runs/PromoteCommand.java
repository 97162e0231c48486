package dev.slipway.client.runs;

import dev.slipway.client.api.JsonTrees;
import dev.slipway.client.context.Context;
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
        return act(wait, required(preview, "DEPLOYMENT_ID"), "promote", created -> "Promotion " + JsonTrees.text(created, "id")
                + " " + JsonTrees.text(created, "status") + ": the build of preview " + JsonTrees.text(created, "rolled_back_to")
                + " becomes production");
    }
}
