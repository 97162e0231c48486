package dev.slipway.cron;

import dev.slipway.appconfig.AppConfig;
import dev.slipway.appconfig.RepoConfig;
import dev.slipway.appconfig.Schedule;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The cron jobs that run now: those the {@code slipway.toml} of each project's production build declares (a project
 * being deleted has none). A build's jobs are read once: its record does not change.
 */
public final class ProductionCron implements CronTable {
    private static final Logger LOG = LoggerFactory.getLogger(ProductionCron.class);

    private record Entry(String name, Schedule schedule, List<String> command) {}

    /** A build's jobs; {@code volumes}: it mounts volumes. */
    private record Build(List<Entry> entries, boolean volumes) {}

    private final Jdbi jdbi;
    private final Map<String, Build> byBuild = new ConcurrentHashMap<>();

    public ProductionCron(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    @Override
    public List<CronJob> jobs() {
        record Row(String projectId, String deploymentId, Instant liveAt, String artifactId, String config, String node) {}
        List<Row> rows = jdbi.withHandle(h -> h.createQuery("""
                        SELECT p.id, d.id, d.live_at, a.id, a.config,
                               (SELECT MIN(owner_node) FROM runtime_instances r WHERE r.project_id = p.id) FROM projects p
                        JOIN deployments d ON d.id = p.production_deployment_id
                        JOIN artifacts a ON a.id = d.artifact_id
                        WHERE p.deleting_at IS NULL AND a.config IS NOT NULL AND d.live_at IS NOT NULL""")
                .map((rs, ctx) -> new Row(rs.getString(1), rs.getString(2), rs.getTimestamp(3).toInstant(), rs.getString(4),
                        rs.getString(5), rs.getString(6)))
                .list());
        List<CronJob> out = new ArrayList<>();
        for (Row r : rows) {
            Build build = byBuild.computeIfAbsent(r.artifactId(), id -> entries(id, r.config()));
            for (Entry e : build.entries()) {
                // a volume is a disk of the server that runs the app: its jobs run there too
                out.add(new CronJob(r.projectId(), r.deploymentId(), e.name(), e.schedule(), e.command(), r.liveAt(),
                        build.volumes() ? r.node() : null));
            }
        }
        if (byBuild.size() > 10_000) byBuild.clear();
        return out;
    }

    private static Build entries(String artifactId, String json) {
        AppConfig config = RepoConfig.ofJson(Optional.of(json)).config();
        if (config == null || config.cron() == null) return new Build(List.of(), false);
        List<Entry> out = new ArrayList<>();
        for (AppConfig.Cron c : config.cron()) {
            try {
                ZoneId zone = ZoneId.of(c.timezone() == null ? "UTC" : c.timezone());
                // a shell runs it, as a build command: pipes and && work, and the PATH finds the app's tools
                out.add(new Entry(c.name(), Schedule.parse(c.schedule(), zone), List.of("sh", "-c", c.command())));
            } catch (RuntimeException e) {
                LOG.warn("cron job {} of build {} cannot be scheduled: {}", c.name(), artifactId, e.getMessage());
            }
        }
        return new Build(out, config.volumes() != null && !config.volumes().isEmpty());
    }
}
