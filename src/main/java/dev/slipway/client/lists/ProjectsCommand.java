package dev.slipway.client.lists;

import dev.slipway.client.api.Api;
import dev.slipway.client.context.Context;
import dev.slipway.client.output.Table;
import picocli.CommandLine.Command;

import java.util.Map;

@Command(name = "projects", mixinStandardHelpOptions = true, description = "List and read projects.",
        subcommands = {ProjectsCommand.ListProjects.class, ProjectsCommand.Show.class})
public final class ProjectsCommand {
    @Command(name = "list", mixinStandardHelpOptions = true, description = "The account's projects, newest first.")
    static final class ListProjects extends ListCommand {
        ListProjects(Context ctx) {
            super(ctx);
        }

        @Override String path() { return "/projects"; }

        @Override Map<String, String> query(Api api) { return Map.of(); }

        @Override
        Table table() {
            return new Table().column("ID", "id").column("NAME", "name").column("SOURCE", "source").column("REPO", "repo")
                    .column("PRODUCTION", "production_deployment_id").column("URL", "url");
        }
    }

    @Command(name = "show", mixinStandardHelpOptions = true, description = "One project (env var names only, never values).")
    static final class Show extends ShowCommand {
        Show(Context ctx) {
            super(ctx);
        }

        @Override String collection() { return "/projects"; }
    }
}
