package dev.slipway.client;

import com.fasterxml.jackson.databind.JsonNode;
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
    int execute() {
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
