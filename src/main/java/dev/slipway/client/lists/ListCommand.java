package dev.slipway.client.lists;

import dev.slipway.client.api.Api;
import dev.slipway.client.api.Pages;
import dev.slipway.client.command.ClientCommand;
import dev.slipway.client.command.Exit;
import dev.slipway.client.context.Context;
import dev.slipway.client.context.Deadline;
import dev.slipway.client.context.UsageException;
import dev.slipway.client.output.Table;
import picocli.CommandLine.Mixin;

import java.util.Map;
import java.util.Set;

/** The shape of every {@code … list}: query, fetch the pages, print a table or the JSON list. */
abstract class ListCommand extends ClientCommand {
    @Mixin
    ListOptions list;

    ListCommand(Context ctx) {
        super(ctx);
    }

    abstract String path();

    /** The list's query; {@code api} resolves what the user named (a project by its name). */
    abstract Map<String, String> query(Api api);

    /** The table's columns, for text output. */
    abstract Table table();

    @Override
    protected int execute() {
        try (Api api = api(Deadline.none())) {
            Map<String, String> query = query(api);
            Pages.Result result = Pages.fetch(api, path(), query, list.limit, list.all);
            if (output.json()) {
                output.print(ctx, result.items());
            } else {
                Table table = table();
                result.items().forEach(table::row);
                table.print(ctx.out());
            }
            if (result.more()) ctx.err().println("(more: --all lists every page)");
            return Exit.OK;
        }
    }

    static String status(String value, Set<String> allowed) {
        if (value != null && !allowed.contains(value)) {
            throw new UsageException("--status must be one of " + String.join(", ", allowed.stream().sorted().toList())
                    + ", not '" + value + "'");
        }
        return value;
    }
}
