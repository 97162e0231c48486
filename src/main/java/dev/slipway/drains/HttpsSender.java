package dev.slipway.drains;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.slipway.core.Json;
import dev.slipway.net.AddressGuard;
import dev.slipway.webhooks.WebhookClient;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;

/**
 * An HTTPS drain: each batch one POST of NDJSON (a JSON object per line), through the webhooks' client (the guard's
 * addresses only, no redirects); any 2xx answer takes the batch.
 */
final class HttpsSender implements DrainSender {
    private final WebhookClient client;

    HttpsSender(WebhookClient client) {
        this.client = client;
    }

    @Override
    public void send(LogDrain drain, List<DrainLine> lines) throws IOException, AddressGuard.Refused, TimeoutException, InterruptedException {
        StringBuilder body = new StringBuilder(lines.size() * 200);
        for (DrainLine l : lines) body.append(json(drain, l)).append('\n');
        int status = client.post(drain.url(), Map.of("Slipway-Drain-Id", drain.id()), "application/x-ndjson",
                body.toString().getBytes(StandardCharsets.UTF_8));
        if (status < 200 || status > 299) throw new IOException("the drain answered HTTP " + status);
    }

    static ObjectNode json(LogDrain drain, DrainLine l) {
        ObjectNode o = Json.MAPPER.createObjectNode().put("source", l.source()).put("project_id", drain.projectId());
        o.put(l.owner().startsWith("cron_") ? "cron_run_id" : "deployment_id", l.owner());
        o.put("at", l.at().toString()).put("level", l.level()).put("message", l.message());
        if (l.source().equals(LogDrain.REQUESTS)) {
            o.put("method", l.method()).put("path", l.path()).put("status", l.status()).put("duration_ms", l.durationMs())
                    .put("bytes", l.bytes()).put("client", l.client());
        }
        return o;
    }

    @Override
    public void close() {
        // the client is the shipper's, shared by its drains
    }
}
