package dev.slipway.monitoring;

import dev.slipway.core.Json;
import dev.slipway.disk.DiskSpace;
import dev.slipway.store.Database;
import dev.slipway.store.StoreHealth;
import io.javalin.http.ContentType;
import io.javalin.http.Context;

import dev.slipway.isolation.Confinement;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code /healthz}: the process answers. {@code /readyz}: and new work would succeed (the store answers, the disk has room). Both say whether apps are
 * isolated, and which accounts the server serves (all, or only its first while it has no working sandbox), so
 * that a monitor can alert on a server that runs tenants unconfined.
 */
public final class HealthHandlers {
    private final Database database;
    private final StoreHealth store;
    private final DiskSpace disk;
    private final Confinement confinement;
    /** The answer of {@code /healthz}, which never changes: serialised once. */
    private final byte[] alive;
    private final Supplier<Map<String, Object>> backups;
    private final StartRecovery recovery;

    /** {@code backups}: the scheduled backups' state for {@code /readyz}; null when they are off. */
    public HealthHandlers(Database database, StoreHealth store, DiskSpace disk, Confinement confinement,
                          Supplier<Map<String, Object>> backups, StartRecovery recovery) {
        this.database = database;
        this.store = store;
        this.disk = disk;
        this.confinement = confinement;
        this.backups = backups;
        this.recovery = recovery;
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", "ok");
        isolation(body);
        this.alive = Json.write(body).getBytes(StandardCharsets.UTF_8);
    }

    public void alive(Context ctx) {
        ctx.contentType(ContentType.APPLICATION_JSON).result(alive);
    }

    /**
     * Ready when new work would succeed: the store answers (and is not known to be away) and the data dir's disk is above
     * its reserve. Otherwise 503, {@code failing} naming the checks ({@code store}, {@code disk}) and {@code checks}
     * saying why. {@code recovery} says where the start's recovery is; it fails no check: while it runs the API takes
     * work (the workers begin on it when it ends) and the edge serves the routes the earlier server sent it.
     */
    public void ready(Context ctx) {
        Map<String, Object> checks = new LinkedHashMap<>();
        List<String> failing = new ArrayList<>();
        boolean storeUp = store.away().isEmpty() && database.reachable();
        checks.put("store", storeUp ? Map.of("status", "ok") : Map.of("status", "unavailable"));
        if (!storeUp) failing.add("store");
        Optional<DiskSpace.Shortage> shortage = disk.shortage();
        checks.put("disk", shortage.<Map<String, Object>>map(s -> Map.of("status", "low", "free_bytes", s.free(),
                "reserve_bytes", s.reserve())).orElse(Map.of("status", "ok")));
        if (shortage.isPresent()) failing.add("disk");
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", failing.isEmpty() ? "ready" : "unavailable");
        body.put("store", database.dialect().name().toLowerCase());
        body.put("failing", failing);
        body.put("checks", checks);
        isolation(body);
        body.put("recovery", recovery.status());
        if (backups != null) body.put("backups", backups.get());
        if (!failing.isEmpty()) ctx.status(503);
        ctx.json(body);
    }

    private void isolation(Map<String, Object> body) {
        body.put("isolation", confinement.isolated() ? "sandbox" : "none");
        body.put("isolation_detail", confinement.summary());
        body.put("accounts", confinement.missingSandbox().isPresent() ? "first_only" : "all");
        if (!confinement.isolated()) body.put("warning", confinement.warning());
    }
}
