package dev.slipway.ops;

import dev.slipway.store.Database;
import io.javalin.http.Context;

import java.util.Map;

/** {@code /healthz}: the process answers. {@code /readyz}: and its store answers too. */
public final class HealthHandlers {
    private final Database database;

    public HealthHandlers(Database database) {
        this.database = database;
    }

    public void alive(Context ctx) {
        ctx.json(Map.of("status", "ok"));
    }

    public void ready(Context ctx) {
        if (database.reachable()) {
            ctx.json(Map.of("status", "ready", "store", database.kind().name().toLowerCase()));
        } else {
            ctx.status(503).json(Map.of("status", "unavailable", "store", database.kind().name().toLowerCase()));
        }
    }
}
