package dev.slipway.monitoring;

import dev.slipway.store.Database;
import io.javalin.http.Context;

import dev.slipway.isolation.Confinement;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code /healthz}: the process answers. {@code /readyz}: and its store answers too. Both say whether apps are
 * isolated, and which accounts the server serves (all, or only its first while it has no working sandbox), so
 * that a monitor can alert on a server that runs tenants unconfined.
 */
public final class HealthHandlers {
    private final Database database;
    private final Confinement confinement;
    private final Map<String, Object> alive;
    private final Supplier<Map<String, Object>> backups;

    /** {@code backups}: the scheduled backups' state for {@code /readyz}; null when they are off. */
    public HealthHandlers(Database database, Confinement confinement, Supplier<Map<String, Object>> backups) {
        this.database = database;
        this.confinement = confinement;
        this.backups = backups;
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", "ok");
        isolation(body);
        this.alive = Collections.unmodifiableMap(body);
    }

    public void alive(Context ctx) {
        ctx.json(alive);
    }

    public void ready(Context ctx) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", database.reachable() ? "ready" : "unavailable");
        body.put("store", database.dialect().name().toLowerCase());
        isolation(body);
        if (backups != null) body.put("backups", backups.get());
        if (!database.reachable()) ctx.status(503);
        ctx.json(body);
    }

    private void isolation(Map<String, Object> body) {
        body.put("isolation", confinement.isolated() ? "sandbox" : "none");
        body.put("isolation_detail", confinement.summary());
        body.put("accounts", confinement.missingSandbox().isPresent() ? "first_only" : "all");
        if (!confinement.isolated()) body.put("warning", confinement.warning());
    }
}
