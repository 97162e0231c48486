package dev.slipway.ops;

import dev.slipway.store.Database;
import io.javalin.http.Context;

import dev.slipway.isolation.Confinement;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code /healthz}: the process answers. {@code /readyz}: and its store answers too; it also says whether
 * apps are isolated, so that a monitor can alert on a server that runs tenants unconfined.
 */
public final class HealthHandlers {
    private final Database database;
    private final Confinement confinement;

    public HealthHandlers(Database database, Confinement confinement) {
        this.database = database;
        this.confinement = confinement;
    }

    public void alive(Context ctx) {
        ctx.json(Map.of("status", "ok"));
    }

    public void ready(Context ctx) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", database.reachable() ? "ready" : "unavailable");
        body.put("store", database.dialect().name().toLowerCase());
        body.put("isolation", confinement.isolated() ? "sandbox" : "none");
        body.put("isolation_detail", confinement.summary());
        if (!confinement.isolated()) body.put("warning", Confinement.NOT_ISOLATED);
        if (!database.reachable()) ctx.status(503);
        ctx.json(body);
    }
}
