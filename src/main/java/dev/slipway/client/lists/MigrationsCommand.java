package dev.slipway.client.lists;

import dev.slipway.client.api.Api;
import dev.slipway.client.context.Context;
import dev.slipway.client.output.Table;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

@Command(name = "migrations", mixinStandardHelpOptions = true, description = "List and read migrations.",
        subcommands = {MigrationsCommand.ListMigrations.class, MigrationsCommand.Show.class})
public final class MigrationsCommand {
    static final Set<String> STATUSES = Set.of("pending", "processing", "complete", "failed");

    @Command(name = "list", mixinStandardHelpOptions = true, description = "The account's migrations, newest first.")
    static final class ListMigrations extends ListCommand {
        @Option(names = "--status", description = "pending, processing, complete or failed")
        String status;

        ListMigrations(Context ctx) {
            super(ctx);
        }

        @Override String path() { return "/migrations"; }

        @Override
        Map<String, String> query(Api api) {
            Map<String, String> q = new LinkedHashMap<>();
            if (status(status, STATUSES) != null) q.put("status", status);
            return q;
        }

        @Override
        Table table() {
            return new Table().column("ID", "id").column("STATUS", "status").column("PROJECT", "project_id")
                    .column("SOURCE", "source").column("REPO", "repo").column("CREATED", "created_at").column("COMPLETED", "completed_at");
        }
    }

    @Command(name = "show", mixinStandardHelpOptions = true, description = "One migration, with database, deployment and logs_url.")
    static final class Show extends ShowCommand {
        Show(Context ctx) {
            super(ctx);
        }

        @Override String collection() { return "/migrations"; }
    }
}
