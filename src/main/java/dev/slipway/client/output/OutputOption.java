package dev.slipway.client.output;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.client.api.JsonTrees;
import dev.slipway.client.context.Context;
import picocli.CommandLine.Option;

/** {@code --output text|json}: human tables, or one JSON document (the API's {@code data}) on stdout. */
public final class OutputOption {
    enum Format { text, json }

    @Option(names = {"-o", "--output"}, defaultValue = "text", paramLabel = "text|json",
            description = "text (default) or json: one JSON document on stdout, the API's data; messages go to stderr")
    Format format;

    public boolean json() {
        return format == Format.json;
    }

    public void print(Context ctx, JsonNode data) {
        ctx.out().println(JsonTrees.pretty(data));
    }
}
