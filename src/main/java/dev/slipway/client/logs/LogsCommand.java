package dev.slipway.client.logs;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.slipway.client.api.Api;
import dev.slipway.client.api.JsonTrees;
import dev.slipway.client.api.ProjectRef;
import dev.slipway.client.api.RunKind;
import dev.slipway.client.command.ClientCommand;
import dev.slipway.client.command.Exit;
import dev.slipway.client.context.Context;
import dev.slipway.client.context.Deadline;
import dev.slipway.client.context.Durations;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "logs", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"The log of a deployment (dep_…), a migration (mig_…), or a project's production deployment",
                "(the project by its name or id): timestamp level message.",
                "With --follow it streams live: a migration until it ends, a deployment for as long as it serves",
                "(its app's output too), until it fails, is rolled back or production moves on; a project for as long",
                "as you like, moving to each new production deployment (a deploy, a rollback) as it goes live.",
                "--output json: {\"logs\": [...]}; with --follow, one JSON entry per line as it arrives."})
public final class LogsCommand extends ClientCommand {
    @Parameters(paramLabel = "TARGET", description = "A deployment (dep_…) or migration (mig_…) id, or a project's name or id (prj_…)")
    String id;

    @Option(names = "--follow", description = "Stream entries as they are written: until the migration ends or the deployment "
            + "stops serving; for a project, until interrupted or --timeout")
    boolean follow;

    @Option(names = "--timeout", paramLabel = "DURATION", description = "With --follow: stop after this (default: no limit)")
    String timeout;

    LogsCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected int execute() {
        String target = required(id, "TARGET");
        Deadline deadline = timeout == null ? Deadline.none() : Deadline.after(Durations.parse("--timeout", timeout));
        try (Api api = api(deadline)) {
            if (!RunKind.isRunId(target)) {
                String projectId = ProjectRef.resolve(api, target);
                if (follow) {
                    new ProductionLogs(api, ctx, output.json()).follow(projectId);
                    return Exit.OK;
                }
                target = ProjectRef.production(api, projectId);
            }
            RunKind kind = RunKind.ofId(target);
            if (follow) {
                new LogFollower(api, ctx).follow(kind.path(target) + "/logs" + (kind == RunKind.DEPLOYMENT ? "?until=stopped" : ""),
                        e -> ctx.out().println(output.json() ? JsonTrees.compact(e) : LogLines.format(e)),
                        "following the log of " + target);
            } else if (output.json()) {
                ObjectNode data = JsonTrees.object();
                data.set("logs", LogLines.all(api, kind, target));
                output.print(ctx, data);
            } else {
                LogLines.each(api, kind, target, e -> ctx.out().println(LogLines.format(e)));
            }
            return Exit.OK;
        }
    }
}
