package dev.slipway.client.lists;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.client.api.Api;
import dev.slipway.client.api.Paths;
import dev.slipway.client.command.ClientCommand;
import dev.slipway.client.command.Exit;
import dev.slipway.client.context.Context;
import dev.slipway.client.context.Deadline;
import dev.slipway.client.output.Table;
import picocli.CommandLine.Parameters;

/** The shape of every {@code … show <id>}: one record, as fields or as JSON. */
abstract class ShowCommand extends ClientCommand {
    @Parameters(paramLabel = "ID", description = "The id")
    String id;

    ShowCommand(Context ctx) {
        super(ctx);
    }

    abstract String collection();

    @Override
    protected int execute() {
        String target = required(id, "ID");
        try (Api api = api(Deadline.none())) {
            JsonNode data = api.get(collection() + "/" + Paths.segment(target)).path("data");
            if (output.json()) {
                output.print(ctx, data);
            } else {
                Table.record(ctx.out(), data);
            }
            return Exit.OK;
        }
    }
}
