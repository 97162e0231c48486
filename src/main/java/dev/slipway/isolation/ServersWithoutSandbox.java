package dev.slipway.isolation;

import org.jdbi.v3.core.Jdbi;

import java.time.Clock;
import java.util.Optional;

/**
 * The servers of a store that run without a working sandbox, and why: what a server found at its start, for the
 * operator commands, which run in another process (table {@code servers_without_sandbox}).
 */
public final class ServersWithoutSandbox {
    private static final int DETAIL = 4000;

    private final Jdbi jdbi;
    private final Clock clock;

    public ServersWithoutSandbox(Jdbi jdbi, Clock clock) {
        this.jdbi = jdbi;
        this.clock = clock;
    }

    /** At a server's start: its row when it has no working sandbox, none when it has one (or isolation is off by choice). */
    public void record(String nodeId, Optional<SandboxProblem> problem) {
        jdbi.useTransaction(h -> {
            h.createUpdate("DELETE FROM servers_without_sandbox WHERE node_id = :n").bind("n", nodeId).execute();
            problem.ifPresent(p -> h.createUpdate("INSERT INTO servers_without_sandbox (node_id, part, detail, fix, checked_at) "
                            + "VALUES (:n, :part, :detail, :fix, :at)")
                    .bind("n", nodeId).bind("part", p.part())
                    .bind("detail", p.detail().length() > DETAIL ? p.detail().substring(0, DETAIL) : p.detail())
                    .bind("fix", p.fix()).bind("at", clock.instant()).execute());
        });
    }

    /** At a clean stop. */
    public void clear(String nodeId) {
        jdbi.useHandle(h -> h.createUpdate("DELETE FROM servers_without_sandbox WHERE node_id = :n").bind("n", nodeId).execute());
    }

    /** One of them (the latest to start), if any runs now. */
    public Optional<SandboxProblem> any() {
        return jdbi.withHandle(h -> h.createQuery("SELECT part, detail, fix FROM servers_without_sandbox ORDER BY checked_at DESC")
                .setMaxRows(1)
                .map((rs, ctx) -> new SandboxProblem(rs.getString("part"), rs.getString("detail"), rs.getString("fix")))
                .findFirst());
    }
}
