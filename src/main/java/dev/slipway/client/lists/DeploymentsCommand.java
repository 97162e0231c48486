package dev.slipway.client.lists;

import dev.slipway.client.api.Api;
import dev.slipway.client.api.ProjectRef;
import dev.slipway.client.context.Context;
import dev.slipway.client.output.Table;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

@Command(name = "deployments", mixinStandardHelpOptions = true, description = "List and read deployments.",
        subcommands = {DeploymentsCommand.ListDeployments.class, DeploymentsCommand.Show.class})
public final class DeploymentsCommand {
    static final Set<String> STATUSES = Set.of("queued", "building", "deploying", "live", "failed", "rolled_back");

    @Command(name = "list", mixinStandardHelpOptions = true, description = "Deployments of the account or of one project, newest first.")
    static final class ListDeployments extends ListCommand {
        @Option(names = "--project", paramLabel = "PROJECT", description = "Only this project's deployments (its name or id)")
        String project;

        @Option(names = "--status", description = "queued, building, deploying, live, failed or rolled_back")
        String status;

        ListDeployments(Context ctx) {
            super(ctx);
        }

        @Override String path() { return "/deployments"; }

        @Override
        Map<String, String> query(Api api) {
            Map<String, String> q = new LinkedHashMap<>();
            if (project != null) q.put("project_id", ProjectRef.resolve(api, required(project, "--project")));
            if (status(status, STATUSES) != null) q.put("status", status);
            return q;
        }

        @Override
        Table table() {
            return new Table().column("ID", "id").column("STATUS", "status").column("PROJECT", "project_id")
                    .column("COMMIT", "commit_sha").column("BRANCH", "branch").column("CREATED", "created_at").column("URL", "url");
        }
    }

    @Command(name = "show", mixinStandardHelpOptions = true, description = "One deployment, with its detail fields.")
    static final class Show extends ShowCommand {
        Show(Context ctx) {
            super(ctx);
        }

        @Override String collection() { return "/deployments"; }
    }
}
