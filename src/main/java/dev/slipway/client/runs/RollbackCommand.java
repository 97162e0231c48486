package dev.slipway.client.runs;

import dev.slipway.client.api.JsonTrees;
import dev.slipway.client.api.ProjectRef;
import dev.slipway.client.context.Context;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

@Command(name = "rollback", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Put a deployment's exact build and env vars back in production (no rebuild).",
                "The target must be live or rolled_back and not production already. Given a project (its name or",
                "prj_… id), production goes back to the deployment that served it last before the current one."})
public final class RollbackCommand extends RunCommand {
    @Parameters(paramLabel = "TARGET", description = "The deployment to go back to (dep_…), or a project: back to its previous production")
    String target;

    @Mixin
    WaitOptions wait;

    RollbackCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected int execute() {
        String given = required(target, "TARGET");
        return act(wait, api -> given.startsWith("dep_") ? given : PreviousProduction.of(api, ProjectRef.resolve(api, given)), "rollback", created -> {
            String from = JsonTrees.text(created, "rolled_back_from");
            return "Rollback " + JsonTrees.text(created, "id") + " " + JsonTrees.text(created, "status")
                    + ": production goes back to " + JsonTrees.text(created, "rolled_back_to") + (from == null ? "" : " (from " + from + ")");
        });
    }
}
