package dev.slipway.client;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(name = "cancel", mixinStandardHelpOptions = true,
        description = "Stop a queued or building deployment; it ends failed, with a log entry saying so.")
final class CancelCommand extends ClientCommand {
    @Parameters(paramLabel = "DEPLOYMENT_ID", description = "The deployment to stop (dep_…)")
    String target;

    CancelCommand(Context ctx) {
        super(ctx);
    }

    @Override
    int execute() {
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
