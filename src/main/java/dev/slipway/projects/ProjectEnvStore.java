package dev.slipway.projects;

import dev.slipway.secrets.SecretBox;
import org.jdbi.v3.core.Jdbi;

import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;

/**
 * A project's env vars one at a time: their names and when each last changed, never their values (sealed with the
 * secret key). A change shows in the project's reads at once and reaches its apps at its next deployment.
 */
public final class ProjectEnvStore {
    /** An env var as a read shows it. */
    public record Named(String name, Instant updatedAt) {}

    /** What a {@link #put} did: {@code created} when the name is new to the project. */
    public record Put(Named var, boolean created) {}

    private final Jdbi jdbi;
    private final SecretBox secrets;
    private final ProjectCache cache;
    private final Clock clock;

    ProjectEnvStore(Jdbi jdbi, SecretBox secrets, ProjectCache cache, Clock clock) {
        this.jdbi = jdbi;
        this.secrets = secrets;
        this.cache = cache;
        this.clock = clock;
    }

    /** The names, sorted, with when each changed. */
    public List<Named> names(String projectId) {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT e.name, COALESCE(e.updated_at, p.created_at) AS changed FROM project_env_vars e
                        JOIN projects p ON p.id = e.project_id WHERE e.project_id = :p ORDER BY e.name""")
                .bind("p", projectId).map((rs, ctx) -> new Named(rs.getString("name"),
                        rs.getObject("changed", OffsetDateTime.class).toInstant())).list());
    }

    /**
     * Sets one, new or replaced; a new one beyond {@code max} per project is refused (empty result), and nothing changes.
     */
    public Optional<Put> put(String projectId, String name, String value, int max) {
        Instant now = clock.instant();
        String sealed = secrets.encrypt(value);
        return jdbi.inTransaction(h -> {
            h.createQuery("SELECT id FROM projects WHERE id = :p FOR UPDATE").bind("p", projectId).mapTo(String.class).one();
            int replaced = h.createUpdate("UPDATE project_env_vars SET value_enc = :v, updated_at = :at WHERE project_id = :p AND name = :n")
                    .bind("v", sealed).bind("at", now).bind("p", projectId).bind("n", name).execute();
            if (replaced == 0) {
                int count = h.createQuery("SELECT COUNT(*) FROM project_env_vars WHERE project_id = :p").bind("p", projectId)
                        .mapTo(Integer.class).one();
                if (count >= max) return Optional.<Put>empty();
                h.createUpdate("INSERT INTO project_env_vars (project_id, name, value_enc, updated_at) VALUES (:p, :n, :v, :at)")
                        .bind("p", projectId).bind("n", name).bind("v", sealed).bind("at", now).execute();
            }
            cache.changedAfterCommit(h, projectId);
            return Optional.of(new Put(new Named(name, now), replaced == 0));
        });
    }

    /** Removes one; false when the project has none of that name. */
    public boolean delete(String projectId, String name) {
        return jdbi.inTransaction(h -> {
            int gone = h.createUpdate("DELETE FROM project_env_vars WHERE project_id = :p AND name = :n")
                    .bind("p", projectId).bind("n", name).execute();
            if (gone > 0) cache.changedAfterCommit(h, projectId);
            return gone > 0;
        });
    }
}
