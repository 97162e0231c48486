package dev.slipway.runtime;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import dev.slipway.build.Artifact;
import dev.slipway.build.ImageRun;
import dev.slipway.core.Json;
import dev.slipway.net.DatabaseEndpoint;
import dev.slipway.secrets.SecretBox;
import java.sql.Clob;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.function.BiConsumer;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.mapper.RowMapper;

import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The instances one node should run, in {@code runtime_instances}, so that a restarted server runs
 * them again. The environment is sealed with {@link SecretBox}: it is never stored in clear.
 */
public final class InstanceStore {
    private final Jdbi jdbi;
    private final SecretBox secrets;
    private final Clock clock;
    private final String node;

    public InstanceStore(Jdbi jdbi, SecretBox secrets, Clock clock, String nodeId) {
        this.jdbi = jdbi;
        this.secrets = secrets;
        this.clock = clock;
        this.node = nodeId;
    }

    public String nodeId() {
        return node;
    }

    public void save(AppSpec spec, int port) {
        Instant now = clock.instant();
        jdbi.useTransaction(h -> {
            h.createUpdate("DELETE FROM runtime_instances WHERE deployment_id = :id").bind("id", spec.deploymentId()).execute();
            h.createUpdate("""
                            INSERT INTO runtime_instances (deployment_id, project_id, artifact, env_enc, desired_state,
                                                           owner_node, port, updated_at, instance_type)
                            VALUES (:id, :project, :artifact, :env, 'RUNNING', :node, :port, :now, :type)""")
                    .bind("id", spec.deploymentId()).bind("project", spec.projectId())
                    .bind("type", spec.instanceType().label())
                    .bind("artifact", Json.write(ArtifactJson.of(spec.artifact())))
                    .bind("env", secrets.encrypt(Json.write(new SealedEnv(spec.env(), spec.secretValues(), spec.database(), spec.volumes(), spec.health(), spec.replicas(), spec.processes()))))
                    .bind("node", node).bind("port", port).bind("now", now)
                    .execute();
        });
    }

    public void recordProcess(String deploymentId, long pid, long pgid, int port, Instant startedAt) {
        recordProcess(deploymentId, pid, pgid, port, startedAt, null);
    }

    /** @param processStartMs when the kernel started {@code pid} (epoch ms), what tells it from a process that reuses the pid */
    public void recordProcess(String deploymentId, long pid, long pgid, int port, Instant startedAt, Long processStartMs) {
        jdbi.useHandle(h -> h.createUpdate("""
                        UPDATE runtime_instances SET pid = :pid, pgid = :pgid, port = :port, started_at = :at, updated_at = :now,
                                                     process_start_ms = :start
                        WHERE deployment_id = :id AND owner_node = :node""")
                .bind("pid", pid).bind("pgid", pgid).bind("port", port).bind("at", startedAt).bind("start", processStartMs)
                .bind("now", clock.instant()).bind("id", deploymentId).bind("node", node).execute());
    }

    public void markStopped(String deploymentId) {
        jdbi.useHandle(h -> h.createUpdate("""
                        UPDATE runtime_instances SET desired_state = 'STOPPED', updated_at = :now
                        WHERE deployment_id = :id AND owner_node = :node""")
                .bind("now", clock.instant()).bind("id", deploymentId).bind("node", node).execute());
    }

    public void delete(String deploymentId) {
        jdbi.useHandle(h -> h.createUpdate("DELETE FROM runtime_instances WHERE deployment_id = :id AND owner_node = :node")
                .bind("id", deploymentId).bind("node", node).execute());
    }

    /** When a retired instance is due to stop; null to keep it. */
    public void setStopAfter(String deploymentId, Instant at) {
        jdbi.useHandle(h -> h.createUpdate("""
                        UPDATE runtime_instances SET stop_after = :at, updated_at = :now
                        WHERE deployment_id = :id AND owner_node = :node""")
                .bind("at", at).bind("now", clock.instant()).bind("id", deploymentId).bind("node", node).execute());
    }

    /** Rows of this node; a row whose sealed data cannot be read is reported through {@code unreadable}. */
    public List<StoredInstance> owned(BiConsumer<String, RuntimeException> unreadable) {
        List<Map<String, Object>> rows = jdbi.withHandle(h -> h.createQuery(
                        "SELECT * FROM runtime_instances WHERE owner_node = :node ORDER BY deployment_id")
                .bind("node", node).mapToMap().list());
        List<StoredInstance> out = new ArrayList<>();
        for (Map<String, Object> r : rows) {
            String id = (String) r.get("deployment_id");
            try {
                out.add(read(r));
            } catch (RuntimeException e) {
                unreadable.accept(id, e);
            }
        }
        return out;
    }

    public Optional<StoredInstance> find(String deploymentId) {
        return jdbi.withHandle(h -> h.createQuery(
                        "SELECT * FROM runtime_instances WHERE deployment_id = :id AND owner_node = :node")
                .bind("id", deploymentId).bind("node", node).mapToMap().findOne()).map(this::read);
    }

    private StoredInstance read(Map<String, Object> r) {
        try {
            Artifact artifact = Json.MAPPER.readValue(text(r.get("artifact")), ArtifactJson.class).toArtifact();
            SealedEnv env = Json.MAPPER.readValue(secrets.decrypt(text(r.get("env_enc"))), new TypeReference<>() {});
            AppSpec spec = new AppSpec((String) r.get("deployment_id"), (String) r.get("project_id"), artifact,
                    env.env(), env.secrets(), InstanceType.byLabel((String) r.get("instance_type")).orElse(InstanceType.STARTER),
                    env.database(), env.volumes(), env.health(), env.replicas() == null ? 1 : env.replicas(), env.processes());
            return new StoredInstance(spec, StoredInstance.DesiredState.valueOf((String) r.get("desired_state")),
                    ((Number) r.get("port")).intValue(), asLong(r.get("pid")), asLong(r.get("pgid")),
                    instant(r.get("started_at")), instant(r.get("stop_after")), asLong(r.get("process_start_ms")));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("unreadable runtime_instances row: " + e.getOriginalMessage(), e);
        }
    }

    private static String text(Object v) {
        if (v instanceof Clob clob) {
            try {
                return clob.getSubString(1, (int) clob.length());
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }
        return (String) v;
    }

    private static Long asLong(Object v) {
        return v == null ? null : ((Number) v).longValue();
    }

    private static Instant instant(Object v) {
        return switch (v) {
            case null -> null;
            case Timestamp t -> t.toInstant();
            case OffsetDateTime o -> o.toInstant();
            case Instant i -> i;
            default -> throw new IllegalStateException("unexpected timestamp type " + v.getClass());
        };
    }

    /** @param database null for none, and in rows written before it was kept */
    /** @param volumes null in a row an earlier version wrote: none; {@code health} null there: the default */
    record SealedEnv(Map<String, String> env, Set<String> secrets, DatabaseEndpoint database, List<Volume> volumes,
                     HealthSpec health, Integer replicas, Map<String, List<String>> processes) {}

    /** Every Artifact field, paths as plain strings. */
    record ArtifactJson(String id, String projectId, String framework, String commitSha, String root,
                        List<String> startCommand, String staticRoot, boolean spaFallback, String appDir,
                        Instant createdAt, List<String> tools, ImageRun image) {
        static ArtifactJson of(Artifact a) {
            return new ArtifactJson(a.id(), a.projectId(), a.framework(), a.commitSha(), a.root().toString(),
                    a.startCommand(), a.staticRoot() == null ? null : a.staticRoot().toString(), a.spaFallback(),
                    a.appDir(), a.createdAt(), a.tools().stream().map(Path::toString).toList(), a.image());
        }

        Artifact toArtifact() {
            return new Artifact(id, projectId, framework, commitSha, Path.of(root), startCommand,
                    staticRoot == null ? null : Path.of(staticRoot), spaFallback, appDir, createdAt,
                    tools == null ? List.of() : tools.stream().map(Path::of).toList(), image);
        }
    }
}
