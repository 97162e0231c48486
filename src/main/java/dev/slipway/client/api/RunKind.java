package dev.slipway.client.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.client.context.UsageException;

import java.util.Set;

/** Deployments and migrations: where they live in the API, and which states end a run. */
public enum RunKind {
    DEPLOYMENT("deployment", "/deployments", Set.of("live", "failed", "rolled_back")),
    MIGRATION("migration", "/migrations", Set.of("complete", "failed"));

    public final String noun;
    final String collection;
    final Set<String> terminal;

    RunKind(String noun, String collection, Set<String> terminal) {
        this.noun = noun;
        this.collection = collection;
        this.terminal = terminal;
    }

    /** By id prefix: {@code dep_…} or {@code mig_…}. */
    /** Whether {@code id} names a deployment or a migration (by its prefix). */
    public static boolean isRunId(String id) {
        return id.startsWith("dep_") || id.startsWith("mig_");
    }

    public static RunKind ofId(String id) {
        if (id.startsWith("dep_")) return DEPLOYMENT;
        if (id.startsWith("mig_")) return MIGRATION;
        throw new UsageException("'" + id + "' is neither a deployment id (dep_…) nor a migration id (mig_…)");
    }

    public String path(String id) {
        return collection + "/" + Paths.segment(id);
    }

    public boolean finished(JsonNode run) {
        return terminal.contains(JsonTrees.text(run, "status"));
    }

    /**
     * A run that got where it was going: a live deployment (or one that was live and has been rolled back
     * since, with {@code live_at}), a complete migration.
     */
    public boolean succeeded(JsonNode run) {
        String status = JsonTrees.text(run, "status");
        if (this == MIGRATION) return "complete".equals(status);
        return "live".equals(status) || ("rolled_back".equals(status) && JsonTrees.text(run, "live_at") != null);
    }
}
