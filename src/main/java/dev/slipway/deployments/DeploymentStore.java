package dev.slipway.deployments;

import dev.slipway.build.ArtifactStore;
import dev.slipway.store.Keyset;
import dev.slipway.store.Page;
import dev.slipway.store.PageRequest;
import dev.slipway.core.StatusChanges;
import dev.slipway.images.ImageStore;
import dev.slipway.logs.Level;
import dev.slipway.logs.LogStore;
import dev.slipway.runs.RunRecords;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.mapper.RowMapper;

import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

public final class DeploymentStore {
    static final RowMapper<Deployment> MAPPER = (rs, ctx) -> new Deployment(
            rs.getString("id"), rs.getString("account_id"), rs.getString("project_id"), rs.getString("migration_id"),
            rs.getString("commit_sha"), rs.getString("commit_message"), rs.getString("branch"),
            DeploymentStatus.parse(rs.getString("status")), rs.getString("rollback_of"),
            rs.getString("rolled_back_from"), rs.getString("artifact_id"), rs.getString("env_overrides_enc"),
            rs.getString("region"), rs.getString("instance_type"), (Integer) rs.getObject("build_duration_seconds"),
            instant(rs.getTimestamp("created_at")), instant(rs.getTimestamp("live_at")),
            instant(rs.getTimestamp("finished_at")), rs.getBoolean("cancel_requested"), rs.getString("upload_id"),
            rs.getString("image"), rs.getString("target"), rs.getString("promoted_from"), rs.getBoolean("share_database"));

    private final Jdbi jdbi;
    private final LogStore logs;
    private final Listener listener;
    private final RunRecords<Deployment, DeploymentStatus> runs;

    /** Told of every new deployment and every status change, inside the transaction that makes it. */
    @FunctionalInterface
    public interface Listener {
        Listener NONE = (h, d) -> {};

        void changed(Handle h, Deployment d);

        /** Its fetch recorded the commit it builds (no status change), inside that transaction. */
        default void sourceKnown(Handle h, Deployment d) {}

        /** Tells each of {@code listeners}, in order. */
        static Listener all(Listener... listeners) {
            List<Listener> each = List.of(listeners);
            return new Listener() {
                @Override
                public void changed(Handle h, Deployment d) {
                    for (Listener l : each) l.changed(h, d);
                }

                @Override
                public void sourceKnown(Handle h, Deployment d) {
                    for (Listener l : each) l.sourceKnown(h, d);
                }
            };
        }
    }

    public DeploymentStore(Jdbi jdbi, Clock clock, LogStore logs) {
        this(jdbi, clock, logs, Listener.NONE);
    }

    public DeploymentStore(Jdbi jdbi, Clock clock, LogStore logs, Listener listener) {
        this.jdbi = jdbi;
        this.logs = logs;
        this.listener = listener;
        this.runs = new RunRecords<>(jdbi, clock, logs, "deployments", MAPPER, DeploymentStatus.MACHINE, to -> switch (to) {
            case LIVE -> "live_at = :now, finished_at = :now";
            case FAILED -> "finished_at = :now";
            default -> "";
        }, listener::changed);
    }

    public Jdbi jdbi() { return jdbi; }

    /** Status changes made through this store, for long-polls. */
    public StatusChanges changes() { return runs.changes(); }

    public void insert(Handle h, Deployment d) {
        h.createUpdate("""
                        INSERT INTO deployments (id, account_id, project_id, migration_id, commit_sha, commit_message, branch,
                            status, rollback_of, rolled_back_from, artifact_id, env_overrides_enc, region, instance_type,
                            created_at, upload_id, image, target, promoted_from, share_database)
                        VALUES (:id, :account, :project, :migration, :sha, :msg, :branch, :status, :rollbackOf,
                            :rolledBackFrom, :artifact, :env, :region, :instanceType, :at, :upload, :image, :target, :promotedFrom, :shareDatabase)""")
                .bind("id", d.id()).bind("account", d.accountId()).bind("project", d.projectId())
                .bind("migration", d.migrationId()).bind("sha", d.commitSha()).bind("msg", d.commitMessage())
                .bind("branch", d.branch()).bind("status", d.status().label()).bind("rollbackOf", d.rollbackOf())
                .bind("rolledBackFrom", d.rolledBackFrom()).bind("artifact", d.artifactId())
                .bind("env", d.envOverridesEnc()).bind("region", d.region()).bind("instanceType", d.instanceType())
                .bind("at", d.createdAt()).bind("upload", d.uploadId()).bind("image", d.image())
                .bind("target", d.target()).bind("promotedFrom", d.promotedFrom()).bind("shareDatabase", d.sharesDatabase())
                .execute();
        runs.inserted(h, d);
    }

    public Optional<Deployment> find(String id) {
        return runs.find(id);
    }

    public Optional<Deployment> find(Handle h, String id) {
        return runs.find(h, id);
    }

    public Page<Deployment> page(String accountId, String projectId, DeploymentStatus status, PageRequest request) {
        List<String> filters = new ArrayList<>();
        Map<String, Object> binds = new HashMap<>();
        if (projectId != null) {
            // the project index serves this one; the account check keeps another account's project empty
            filters.add("project_id = :project");
            binds.put("project", projectId);
        }
        filters.add("account_id = :account");
        binds.put("account", accountId);
        if (status != null) {
            filters.add("status = :status");
            binds.put("status", status.label());
        }
        return jdbi.withHandle(h -> Keyset.page(h, "deployments", filters, binds, request, MAPPER,
                Deployment::createdAt, Deployment::id));
    }

    /**
     * Moves a deployment from one status to another if it is still in {@code from}, with its log
     * entry, in one transaction. False when another actor moved it first (e.g. a cancel).
     */
    public boolean transition(String id, DeploymentStatus from, DeploymentStatus to, Level level, String message) {
        return runs.transition(id, from, to, level, message);
    }

    public boolean transition(Handle h, String id, DeploymentStatus from, DeploymentStatus to, Level level, String message) {
        return runs.transition(h, id, from, to, level, message);
    }

    /**
     * Ends the deployment failed, unless it has finished already, and tells its migration, in one
     * transaction. Returns the deployment as it was before.
     */
    public Deployment fail(String id, String cause, MigrationProgress migrations) {
        logs.flush(); // the run's lines are stored before anyone sees it failed (a failure event carries the last ones)
        return jdbi.inTransaction(h -> {
            Deployment d = find(h, id).orElseThrow();
            if (!d.status().finished()) {
                transition(h, id, d.status(), DeploymentStatus.FAILED, Level.ERROR, "Deployment failed: " + cause);
            }
            if (d.migrationId() != null) migrations.failed(h, d.migrationId(), cause);
            return d;
        });
    }

    /** The digest a deployment's image tag resolved to: what it runs, and what a rollback to it runs again. */
    public void recordImage(String id, String resolved) {
        jdbi.useHandle(h -> h.createUpdate("UPDATE deployments SET image = :image WHERE id = :id")
                .bind("image", resolved).bind("id", id).execute());
    }

    public void recordSource(String id, String sha, String message) {
        jdbi.useTransaction(h -> {
            h.createUpdate("UPDATE deployments SET commit_sha = :sha, commit_message = :msg WHERE id = :id")
                    .bind("sha", sha).bind("msg", message).bind("id", id).execute();
            h.createQuery("SELECT * FROM deployments WHERE id = :id").bind("id", id).map(MAPPER).findOne()
                    .ifPresent(d -> listener.sourceKnown(h, d));
        });
    }

    /**
     * Records the build and moves the deployment from {@code building} to {@code deploying}, in one
     * transaction. False, with nothing changed, when a cancel was requested; false, with the build
     * recorded, when the deployment is no longer {@code building}.
     */
    public boolean recordBuild(String id, String artifactId, int seconds, String message) {
        logs.flush(); // the lines logged before come before this entry
        return jdbi.inTransaction(h -> h.createUpdate("""
                        UPDATE deployments SET artifact_id = :a, build_duration_seconds = :s
                        WHERE id = :id AND cancel_requested = FALSE""")
                .bind("a", artifactId).bind("s", seconds).bind("id", id).execute() == 1
                && transition(h, id, DeploymentStatus.BUILDING, DeploymentStatus.DEPLOYING, Level.INFO, message));
    }

    public boolean requestCancel(String id) {
        return jdbi.withHandle(h -> h.createUpdate(
                        "UPDATE deployments SET cancel_requested = TRUE WHERE id = :id AND status IN (<cancellable>)")
                .bind("id", id).bindList("cancellable", labels(DeploymentStatus.cancellable())).execute()) == 1;
    }

    /** Asks every build of the project to stop, inside the caller's transaction. */
    public void requestCancelAll(Handle h, String projectId) {
        h.createUpdate("UPDATE deployments SET cancel_requested = TRUE WHERE project_id = :p AND status IN (<cancellable>)")
                .bind("p", projectId).bindList("cancellable", labels(DeploymentStatus.cancellable())).execute();
    }

    /** The project's deployments in {@code status}, inside the caller's transaction. */
    public List<String> withStatus(Handle h, String projectId, DeploymentStatus status) {
        return h.createQuery("SELECT id FROM deployments WHERE project_id = :p AND status = :s")
                .bind("p", projectId).bind("s", status.label()).mapTo(String.class).list();
    }

    /** The live previews of a project, newest first. */
    public List<Deployment> livePreviews(String projectId) {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT * FROM deployments WHERE project_id = :p AND target = :preview AND status = :live
                        ORDER BY created_at DESC, id DESC""")
                .bind("p", projectId).bind("preview", Deployment.PREVIEW).bind("live", DeploymentStatus.LIVE.label())
                .map(MAPPER).list());
    }

    /** The live previews of a project's branch. */
    public List<String> livePreviews(String projectId, String branch) {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT id FROM deployments
                        WHERE project_id = :p AND target = :preview AND branch = :branch AND status = :live ORDER BY id""")
                .bind("p", projectId).bind("preview", Deployment.PREVIEW).bind("branch", branch)
                .bind("live", DeploymentStatus.LIVE.label()).mapTo(String.class).list());
    }

    /**
     * The upload the project's newest build from one was made of: a rollback or a promotion carries its target's
     * (older) upload but builds nothing, so a redeploy after one still builds the latest upload.
     */
    public Optional<String> latestUploadId(String projectId) {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT upload_id FROM deployments WHERE project_id = :p AND upload_id IS NOT NULL
                            AND rollback_of IS NULL AND promoted_from IS NULL
                        ORDER BY created_at DESC, id DESC LIMIT 1""")
                .bind("p", projectId).mapTo(String.class).findOne());
    }

    /**
     * Whether a follower of the deployment's log has seen all of it: it failed or was rolled back, or it is live but
     * serves no more (no longer its project's production, and not a preview). A running build, or an app that
     * serves, still writes to it.
     */
    public boolean logEnded(String id) {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT d.status, d.target, p.production_deployment_id FROM deployments d
                        JOIN projects p ON p.id = d.project_id WHERE d.id = :id""")
                .bind("id", id)
                .map((rs, ctx) -> {
                    DeploymentStatus status = DeploymentStatus.parse(rs.getString(1));
                    if (!status.finished()) return false;
                    return status != DeploymentStatus.LIVE
                            || !(id.equals(rs.getString(3)) || Deployment.PREVIEW.equals(rs.getString(2)));
                })
                .findOne().orElse(true));
    }

    /** Ids of deployments whose artifacts must be kept (live or rollback targets). */
    public List<String> liveArtifactIds(String projectId) {
        return jdbi.withHandle(h -> h.createQuery(
                        "SELECT artifact_id FROM deployments WHERE project_id = :p AND status IN (<kept>) AND artifact_id IS NOT NULL")
                .bind("p", projectId).bindList("kept", labels(DeploymentStatus.keepsArtifact())).mapTo(String.class).list());
    }

    /** The deployment of a project whose id ends in {@code shortId} (the label of its own address). */
    public Optional<Deployment> findByShortId(String projectId, String shortId) {
        return jdbi.withHandle(h -> h.createQuery("SELECT * FROM deployments WHERE project_id = :p AND id LIKE :suffix")
                        .bind("p", projectId).bind("suffix", "%" + shortId).map(MAPPER).list())
                .stream().filter(d -> d.shortId().equals(shortId)).findFirst();
    }

    /** Ids of the live or rolled-back deployments that are rollbacks to {@code id} (they run its build). */
    public List<String> rollbacksTo(String id) {
        return jdbi.withHandle(h -> h.createQuery(
                        "SELECT id FROM deployments WHERE rollback_of = :id AND status IN (<kept>)")
                .bind("id", id).bindList("kept", labels(DeploymentStatus.keepsArtifact())).mapTo(String.class).list());
    }

    /** The tier of the account that owns the project. */
    public dev.slipway.accounts.Tier tierOf(String projectId) {
        return dev.slipway.accounts.Tier.parse(jdbi.withHandle(h -> h.createQuery(
                        "SELECT a.tier FROM accounts a JOIN projects p ON p.account_id = a.id WHERE p.id = :p")
                .bind("p", projectId).mapTo(String.class).one()));
    }

    /**
     * The deployment whose log the app of {@code instanceOwner} writes to: the newest rollback to it that went live
     * (a rollback to a running app moves the app's output to the rollback's log), else the owner itself.
     */
    public String outputLogOf(String instanceOwner) {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT id FROM deployments WHERE rollback_of = :id AND status IN (<kept>)
                        ORDER BY created_at DESC, id DESC LIMIT 1""")
                .bind("id", instanceOwner).bindList("kept", labels(DeploymentStatus.keepsArtifact())).mapTo(String.class)
                .findOne()).orElse(instanceOwner);
    }

    /** The production deployments that are {@code id} itself or a rollback to it, one per project. */
    public List<String> productionsOf(String id) {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT p.production_deployment_id FROM projects p
                        JOIN deployments d ON d.id = p.production_deployment_id
                        WHERE p.production_deployment_id = :id OR d.rollback_of = :id""")
                .bind("id", id).mapTo(String.class).list());
    }

    static List<String> labels(Set<DeploymentStatus> group) {
        return DeploymentStatus.MACHINE.labels(group);
    }

    private static Instant instant(Timestamp ts) {
        return ts == null ? null : ts.toInstant();
    }

    /** Records that the request named the deployment's instance type (it is not the build's file's to choose). */
    public void typeRequested(Handle h, String id) {
        h.createUpdate("UPDATE deployments SET instance_type_requested = TRUE WHERE id = :id").bind("id", id).execute();
    }

    public boolean typeRequested(String id) {
        return jdbi.withHandle(h -> h.createQuery("SELECT COALESCE(instance_type_requested, FALSE) FROM deployments WHERE id = :id")
                .bind("id", id).mapTo(Boolean.class).findOne().orElse(false));
    }

    /** The type the build's file chose, before its app starts. */
    public void instanceType(String id, String type) {
        jdbi.useHandle(h -> h.createUpdate("UPDATE deployments SET instance_type = :type WHERE id = :id")
                .bind("type", type).bind("id", id).execute());
    }

    /** What the build's {@code slipway.toml} said (JSON), when it had one. */
    public Optional<String> config(String artifactId) {
        return jdbi.withHandle(h -> ArtifactStore.config(h, artifactId));
    }

    /** The OCI image of a build ({@code artifacts.image}), when one was pushed. */
    public Optional<String> image(String artifactId) {
        return jdbi.withHandle(h -> ImageStore.find(h, artifactId));
    }
}
