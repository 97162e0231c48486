package dev.slipway.build;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.slipway.core.Json;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.mapper.RowMapper;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The artifacts table and the directories it points to. Rows are written only for finished builds;
 * a row is deleted before its directory, so a half-deleted artifact is never found.
 */
public final class ArtifactStore {
    /** What the table keeps beyond the {@link Artifact} itself. */
    public record Stats(long sizeBytes, Duration buildDuration) {}

    private static final TypeReference<List<String>> ARGV = new TypeReference<>() {};
    private static final RowMapper<Artifact> MAPPER = (rs, ctx) -> new Artifact(
            rs.getString("id"), rs.getString("project_id"), rs.getString("framework"), rs.getString("commit_sha"),
            Path.of(rs.getString("root")), argv(rs.getString("start_command")),
            rs.getString("static_root") == null ? null : Path.of(rs.getString("static_root")),
            rs.getBoolean("spa_fallback"), rs.getString("app_dir"), rs.getTimestamp("created_at").toInstant(),
            paths(rs.getString("tools")), imageRun(rs.getString("image_run")));

    private final Jdbi jdbi;
    private final Path artifactsDir;

    /** @param artifactsDir where artifacts live ({@link BuildSettings#artifactsDir()}); nothing outside it is ever deleted */
    public ArtifactStore(Jdbi jdbi, Path artifactsDir) {
        this.jdbi = jdbi;
        this.artifactsDir = artifactsDir.toAbsolutePath().normalize();
    }

    public void save(Artifact a, long sizeBytes, Duration buildDuration) {
        jdbi.useHandle(h -> h.createUpdate("""
                        INSERT INTO artifacts (id, project_id, framework, commit_sha, root, start_command, static_root,
                                               spa_fallback, app_dir, size_bytes, build_duration_ms, created_at, tools,
                                               image_run, image)
                        VALUES (:id, :project, :framework, :sha, :root, :start, :static, :spa, :app, :size, :ms, :at, :tools,
                                :imageRun, :image)""")
                .bind("id", a.id()).bind("project", a.projectId()).bind("framework", a.framework())
                .bind("sha", a.commitSha()).bind("root", a.root().toString()).bind("start", Json.write(a.startCommand()))
                .bind("static", a.staticRoot() == null ? null : a.staticRoot().toString())
                .bind("spa", a.spaFallback()).bind("app", a.appDir())
                .bind("size", sizeBytes).bind("ms", buildDuration.toMillis()).bind("at", a.createdAt())
                .bind("tools", a.tools().isEmpty() ? null : Json.write(a.tools().stream().map(Path::toString).toList()))
                .bind("imageRun", a.image() == null ? null : Json.write(a.image()))
                .bind("image", a.image() == null ? null : a.image().reference())
                .execute());
    }

    /** Records what the build's {@code slipway.toml} said (JSON), beside its artifact. */
    public void saveConfig(String artifactId, String configJson) {
        jdbi.useHandle(h -> h.createUpdate("UPDATE artifacts SET config = :c WHERE id = :id")
                .bind("c", configJson).bind("id", artifactId).execute());
    }

    /** What the build's {@code slipway.toml} said (JSON), or empty when it had none. */
    public Optional<String> config(String artifactId) {
        if (artifactId == null) return Optional.empty();
        return jdbi.withHandle(h -> config(h, artifactId));
    }

    /** As above, on the caller's handle. */
    public static Optional<String> config(Handle h, String artifactId) {
        return h.createQuery("SELECT config FROM artifacts WHERE id = :id").bind("id", artifactId)
                .mapTo(String.class).list().stream().filter(java.util.Objects::nonNull).findFirst();
    }

    /** The artifact, when its row exists and its directory is on this machine; empty means rebuild. */
    public Optional<Artifact> find(String id) {
        return jdbi.withHandle(h -> h.createQuery("SELECT * FROM artifacts WHERE id = :id").bind("id", id)
                .map(MAPPER).findOne()).filter(a -> Files.isDirectory(a.root()));
    }

    /** The framework the project's newest build detected (or was given); empty before its first build. */
    public Optional<String> latestFramework(String projectId) {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT framework FROM artifacts WHERE project_id = :p AND framework IS NOT NULL
                        ORDER BY created_at DESC, id DESC LIMIT 1""")
                .bind("p", projectId).mapTo(String.class).findOne());
    }

    /**
     * The project's newest artifact of the image {@code reference} ({@code <repository>@sha256:…}) still on this
     * machine: a deployment of an image the project ran before starts it without pulling and unpacking again.
     */
    public Optional<Artifact> findImage(String projectId, String reference) {
        return jdbi.withHandle(h -> h.createQuery("""
                                SELECT * FROM artifacts WHERE project_id = :p AND image = :ref AND image_run IS NOT NULL
                                ORDER BY created_at DESC, id DESC""")
                        .bind("p", projectId).bind("ref", reference).map(MAPPER).list())
                .stream().filter(a -> Files.isDirectory(a.root())).findFirst();
    }

    public Optional<Stats> stats(String id) {
        return jdbi.withHandle(h -> h.createQuery("SELECT size_bytes, build_duration_ms FROM artifacts WHERE id = :id")
                .bind("id", id)
                .map((rs, ctx) -> new Stats(rs.getLong(1), Duration.ofMillis(rs.getLong(2)))).findOne());
    }

    /** Every recorded artifact of a project, newest first. */
    public List<Artifact> listForProject(String projectId) {
        return jdbi.withHandle(h -> h.createQuery(
                        "SELECT * FROM artifacts WHERE project_id = :p ORDER BY created_at DESC, id DESC")
                .bind("p", projectId).map(MAPPER).list());
    }

    /**
     * Deletes the project's artifacts beyond the newest {@code keep}, except those in {@code inUse}
     * (the caller passes live deployments and rollback targets).
     *
     * @return the ids deleted
     */
    public List<String> prune(String projectId, int keep, Set<String> inUse) {
        if (keep < 0) throw new IllegalArgumentException("keep must not be negative");
        List<Artifact> all = listForProject(projectId);
        List<String> deleted = new ArrayList<>();
        for (Artifact a : all.subList(Math.min(keep, all.size()), all.size())) {
            if (inUse.contains(a.id())) continue;
            delete(a);
            deleted.add(a.id());
        }
        return deleted;
    }

    /**
     * Deletes the builds no deployment needs, when the disk is short of space: those that no deployment in a
     * {@code needing} status names (live, a rollback's way back, in flight), of projects with no deployment in an
     * {@code inFlight} status (a build's artifact is recorded before its deployment names it). A later deployment of
     * such a commit builds it again.
     *
     * @return the bytes freed, as recorded when each was built
     */
    public long evictUnused(Set<String> needing, Set<String> inFlight) {
        List<Artifact> unused = jdbi.withHandle(h -> h.createQuery("""
                        SELECT a.* FROM artifacts a
                        WHERE NOT EXISTS (SELECT 1 FROM deployments d WHERE d.artifact_id = a.id AND d.status IN (<needing>))
                          AND NOT EXISTS (SELECT 1 FROM deployments d WHERE d.project_id = a.project_id AND d.status IN (<busy>))""")
                .bindList("needing", List.copyOf(needing)).bindList("busy", List.copyOf(inFlight)).map(MAPPER).list());
        long freed = 0;
        for (Artifact a : unused) {
            long bytes = stats(a.id()).map(Stats::sizeBytes).orElse(0L);
            delete(a);
            freed += bytes;
        }
        return freed;
    }

    /** The ids of every recorded artifact, of every project. */
    public Set<String> recordedIds() {
        return jdbi.withHandle(h -> Set.copyOf(h.createQuery("SELECT id FROM artifacts").mapTo(String.class).list()));
    }

    /** Deletes every build of a project (it is being deleted): their rows and their files. Returns how many. */
    public int deleteForProject(String projectId) {
        List<Artifact> all = listForProject(projectId);
        all.forEach(this::delete);
        return all.size();
    }

    private void delete(Artifact a) {
        jdbi.useHandle(h -> h.createUpdate("DELETE FROM artifacts WHERE id = :id").bind("id", a.id()).execute());
        Path dir = a.root().toAbsolutePath().normalize();
        if (dir.startsWith(artifactsDir) && !dir.equals(artifactsDir)) Trees.delete(dir);
    }

    private static ImageRun imageRun(String json) {
        if (json == null) return null;
        try {
            return Json.MAPPER.readValue(json, ImageRun.class);
        } catch (Exception e) {
            throw new IllegalStateException("artifact image_run is not an image's run settings: " + json, e);
        }
    }

    private static List<Path> paths(String json) {
        return json == null ? List.of() : argv(json).stream().map(Path::of).toList();
    }

    private static List<String> argv(String json) {
        try {
            return List.copyOf(Json.MAPPER.readValue(json, ARGV));
        } catch (Exception e) {
            throw new IllegalStateException("artifact start_command is not a JSON list: " + json, e);
        }
    }
}
