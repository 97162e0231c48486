package dev.slipway.client.runs;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.client.api.Api;
import dev.slipway.client.api.JsonTrees;
import dev.slipway.client.api.RunKind;
import dev.slipway.client.command.ClientCommand;
import dev.slipway.client.command.Exit;
import dev.slipway.client.context.Context;
import dev.slipway.client.context.Deadline;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(name = "cancel", mixinStandardHelpOptions = true,
        description = "Stop a queued or building deployment; it ends failed, with a log entry saying so.")
public final class CancelCommand extends ClientCommand {
    @Parameters(paramLabel = "DEPLOYMENT_ID", description = "The deployment to stop (dep_…)")
    String target;

    CancelCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected int execute() {
        String id = required(target, "DEPLOYMENT_ID");
        try (Api api = api(Deadline.none())) {
            JsonNode d = api.post(RunKind.DEPLOYMENT.path(id) + "/cancel", null, idempotencyKey() + "-cancel").path("data");
            if (output.json()) {
                output.print(ctx, d);
            } else {
                ctx.out().println("Cancelled " + id + " (status " + JsonTrees.text(d, "status") + ")");
            }
            return Exit.OK;
        }
    }
}
