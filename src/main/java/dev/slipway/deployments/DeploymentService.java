package dev.slipway.deployments;

import dev.slipway.accounts.Tier;
import dev.slipway.api.ApiException;
import dev.slipway.core.Ids;
import dev.slipway.core.Json;
import dev.slipway.isolation.Confinement;
import dev.slipway.jobs.Job;
import dev.slipway.jobs.JobStore;
import dev.slipway.jobs.Workers;
import dev.slipway.logs.Level;
import dev.slipway.logs.LogStore;
import dev.slipway.projects.Project;
import dev.slipway.projects.ProjectInput;
import dev.slipway.runtime.InstanceType;
import dev.slipway.secrets.SecretBox;
import org.jdbi.v3.core.Handle;

import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.Predicate;

/** Creating deployments (new builds and rollbacks) and cancelling them; the work itself is a job. */
public final class DeploymentService {
    private final DeploymentStore deployments;
    private final JobStore jobs;
    private final LogStore logs;
    private final SecretBox secrets;
    private final Clock clock;
    private final Ids ids;
    private final boolean isolated;
    private final Workers workers;
    private final WarmSwitches switches;
    private final Predicate<String> builtHere;

    /**
     * @param isolated  whether the runtime sandboxes apps; when not, every deployment log starts with {@link Confinement#NOT_ISOLATED}
     * @param builtHere whether an artifact (by id) is on this machine, so that a rollback to it starts without building
     */
    public DeploymentService(DeploymentStore deployments, JobStore jobs, LogStore logs, SecretBox secrets, Clock clock,
                             boolean isolated, Workers workers, WarmSwitches switches, Predicate<String> builtHere) {
        this.deployments = deployments;
        this.jobs = jobs;
        this.logs = logs;
        this.secrets = secrets;
        this.clock = clock;
        this.ids = new Ids(clock);
        this.isolated = isolated;
        this.workers = workers;
        this.switches = switches;
        this.builtHere = builtHere;
    }

    /**
     * A new build of the project (inside the caller's transaction when {@code h} is given by a migration), of
     * the instance type asked for, checked by the caller against the account's tier ({@link InstanceTypeField}).
     */
    public Deployment createBuild(Handle h, Project project, String commitSha, Map<String, String> envOverrides,
                                  String uploadId, String migrationId, InstanceType type) {
        return createBuild(h, project, commitSha, envOverrides, uploadId, migrationId, type, null);
    }

    /** @param image of a prebuilt image's project: the image to run (null: the project's own reference) */
    public Deployment createBuild(Handle h, Project project, String commitSha, Map<String, String> envOverrides,
                                  String uploadId, String migrationId, InstanceType type, String image) {
        String runs = ProjectInput.IMAGE.equals(project.source()) ? (image != null ? image : project.repo()) : null;
        Deployment d = new Deployment(ids.next("dep"), project.accountId(), project.id(), migrationId, commitSha, null,
                project.branch(), DeploymentStatus.QUEUED, null, null, null, sealed(envOverrides), project.region(),
                type.label(), null, clock.instant(), null, null, false, uploadId, runs);
        deployments.insert(h, d);
        firstLines(h, d.id(), "Deployment queued" + (runs != null ? " for the image " + runs : commitSha != null ? " for commit " + commitSha
                : project.branch() != null ? " for the head of " + project.branch() : ""));
        jobs.enqueue(h, Job.DEPLOYMENT, d.id(), project.id());
        return d;
    }

    /** Records that a new deployment's request named its instance type, so its build's file does not choose it. */
    public void typeRequested(Handle h, String deploymentId) {
        deployments.typeRequested(h, deploymentId);
    }

    /**
     * A new build of the project for a caller of {@code tier}: of the type {@code requested}, or else of
     * production's type while the tier allows it, or else of the tier's default.
     */
    public Deployment create(Tier tier, Project project, String commitSha, Map<String, String> envOverrides, String uploadId,
                             InstanceType requested) {
        return create(tier, project, commitSha, envOverrides, uploadId, requested, null);
    }

    /** As above; {@code image}: of a prebuilt image's project, the image to run (null: the project's own reference). */
    public Deployment create(Tier tier, Project project, String commitSha, Map<String, String> envOverrides, String uploadId,
                             InstanceType requested, String image) {
        InstanceType type = requested != null ? requested : inherited(tier, project);
        Deployment d = deployments.jdbi().inTransaction(h -> {
            Deployment created = createBuild(h, project, commitSha, envOverrides, uploadId, null, type, image);
            if (requested != null) deployments.typeRequested(h, created.id());
            return created;
        });
        workers.wake();
        return d;
    }

    /**
     * A rollback: a new deployment of the target's commit, artifact and env vars (no rebuild).
     * {@code rolled_back_from} is production at this moment. To an app still running here it is a route
     * switch made before the answer, by a job this server takes at once: it waits neither for a worker's
     * claim nor for a free slot behind other projects' builds. To a stopped app whose build is on this machine
     * it is a start of that build, taken at once the same way: it builds nothing, so it needs no slot. The job's
     * own work (its state changes and log lines, a stopped app's start) starts on {@code after}: an API request's
     * answer is sent first. Only a target whose build was pruned waits for a worker and a slot, to be built again.
     */
    public Deployment rollback(Project project, Deployment target, Executor after) {
        rollbackRefusal(project, target).ifPresent(reason -> {
            throw ApiException.invalidState(reason);
        });
        Deployment d = new Deployment(ids.next("dep"), project.accountId(), project.id(), null, target.commitSha(),
                target.commitMessage(), target.branch(), DeploymentStatus.QUEUED, target.id(),
                project.productionDeploymentId(), target.artifactId(), target.envOverridesEnc(), target.region(),
                target.instanceType(), null, clock.instant(), null, null, false, target.uploadId(), target.image());
        boolean warm = switches.warm(target);
        boolean atOnce = warm || target.artifactId() != null && builtHere.test(target.artifactId());
        Optional<Job> held = deployments.jdbi().inTransaction(h -> {
            // the job first: a held one locks the project's row, before any insert that references the project
            Optional<Job> job = atOnce ? workers.enqueueHeld(h, Job.DEPLOYMENT, d.id(), project.id()) : Optional.empty();
            if (!atOnce) jobs.enqueue(h, Job.DEPLOYMENT, d.id(), project.id());
            deployments.insert(h, d);
            firstLines(h, d.id(), "Rollback queued: redeploying " + target.id()
                    + (target.commitSha() != null ? " (commit " + target.commitSha().substring(0, 7) + ")" : "")
                    + " in place of " + project.productionDeploymentId());
            return job;
        });
        held.ifPresentOrElse(job -> {
            try {
                if (warm) switches.switchNow(d, project);
            } finally {
                after.execute(() -> workers.runNow(job));
            }
        }, workers::wake);
        return d;
    }

    /** The project's own type, else production's, while the tier allows it; else the tier's default. */
    private InstanceType inherited(Tier tier, Project project) {
        return Optional.ofNullable(project.run().instanceType()).flatMap(InstanceType::byLabel)
                .or(() -> Optional.ofNullable(project.productionDeploymentId()).flatMap(deployments::find)
                        .flatMap(production -> InstanceType.byLabel(production.instanceType())))
                .filter(type -> type.allowedFor(tier))
                .orElse(InstanceType.defaultFor(tier));
    }

    /**
     * A new deployment's first log lines, in its creating transaction: the warning when apps are not
     * isolated, then {@code queued}; one statement for both (the POST waits for it).
     */
    private void firstLines(Handle h, String deploymentId, String queued) {
        logs.append(h, deploymentId, isolated ? List.of(new LogStore.Line(Level.INFO, queued))
                : List.of(new LogStore.Line(Level.WARNING, Confinement.NOT_ISOLATED), new LogStore.Line(Level.INFO, queued)));
    }

    /**
     * A preview of the project: built from {@code branch} (null: the project's) at {@code commitSha} (null: its head),
     * served at its own address, never production.
     */
    public Deployment createPreview(Tier tier, Project project, String branch, String commitSha, Map<String, String> envOverrides,
                                    String uploadId, String image, InstanceType requested) {
        return createPreview(tier, project, branch, commitSha, envOverrides, uploadId, image, requested, false);
    }

    /** As above; {@code shareDatabase}: the preview gets the project's database (DATABASE_URL), as production does. */
    public Deployment createPreview(Tier tier, Project project, String branch, String commitSha, Map<String, String> envOverrides,
                                    String uploadId, String image, InstanceType requested, boolean shareDatabase) {
        InstanceType type = requested != null ? requested : inherited(tier, project);
        String from = branch != null ? branch : project.branch();
        String runs = ProjectInput.IMAGE.equals(project.source()) ? (image != null ? image : project.repo()) : null;
        Deployment d = new Deployment(ids.next("dep"), project.accountId(), project.id(), null, commitSha, null, from,
                DeploymentStatus.QUEUED, null, null, null, sealed(envOverrides), project.region(), type.label(), null,
                clock.instant(), null, null, false, uploadId, runs, Deployment.PREVIEW, null, shareDatabase);
        deployments.jdbi().useTransaction(h -> {
            deployments.insert(h, d);
            firstLines(h, d.id(), "Preview queued" + (commitSha != null ? " for commit " + commitSha
                    : from != null ? " for the head of " + from : ""));
            jobs.enqueue(h, Job.DEPLOYMENT, d.id(), project.id());
        });
        workers.wake();
        return d;
    }

    /**
     * Makes a live preview production without building it again: a new deployment that runs the preview's build with
     * production's variables (not the preview's overrides), queued like a build.
     */
    public Deployment promote(Project project, Deployment preview) {
        if (!preview.preview()) {
            throw ApiException.invalidState("Deployment " + preview.id() + " is not a preview: roll back to it instead");
        }
        if (preview.status() != DeploymentStatus.LIVE || preview.artifactId() == null) {
            throw ApiException.invalidState("Deployment " + preview.id() + " is " + preview.status().label()
                    + "; only a live preview can be promoted");
        }
        Deployment d = new Deployment(ids.next("dep"), project.accountId(), project.id(), null, preview.commitSha(),
                preview.commitMessage(), preview.branch(), DeploymentStatus.QUEUED, null, null, preview.artifactId(), null, preview.region(), preview.instanceType(), null, clock.instant(), null, null,
                false, preview.uploadId(), preview.image(), Deployment.PRODUCTION, preview.id());
        deployments.jdbi().useTransaction(h -> {
            deployments.insert(h, d);
            firstLines(h, d.id(), "Promotion queued: the build of preview " + preview.id() + " becomes production"
                    + (preview.commitSha() != null ? " (commit " + preview.commitSha().substring(0, 7) + ")" : ""));
            jobs.enqueue(h, Job.DEPLOYMENT, d.id(), project.id());
        });
        workers.wake();
        return d;
    }

    /** Why production cannot be rolled back to {@code target} now, or empty when it can (the API's 409 rule). */
    public Optional<String> rollbackRefusal(Project project, Deployment target) {
        if (target.preview()) {
            return Optional.of("Deployment " + target.id() + " is a preview, never production: promote it instead");
        }
        if (target.status() != DeploymentStatus.LIVE && target.status() != DeploymentStatus.ROLLED_BACK) {
            return Optional.of("Deployment " + target.id() + " is " + target.status().label()
                    + "; only a live or rolled_back deployment can be rolled back to");
        }
        if (target.id().equals(project.productionDeploymentId())) {
            return Optional.of("Deployment " + target.id() + " is already production of project " + project.id());
        }
        if (target.artifactId() == null) {
            return Optional.of("Deployment " + target.id() + " has no build to roll back to");
        }
        return Optional.empty();
    }

    /** Cancels a queued deployment at once, or asks the worker building it to stop. */
    public void cancel(Deployment d) {
        if (d.status() != DeploymentStatus.QUEUED && d.status() != DeploymentStatus.BUILDING) {
            throw ApiException.invalidState("Deployment " + d.id() + " is " + d.status().label()
                    + "; only a queued or building deployment can be cancelled");
        }
        if (d.status() == DeploymentStatus.QUEUED) {
            logs.flush();
            boolean done = deployments.jdbi().inTransaction(h -> {
                boolean moved = deployments.transition(h, d.id(), DeploymentStatus.QUEUED, DeploymentStatus.FAILED,
                        Level.ERROR, "Deployment cancelled before it started");
                if (moved) jobs.finishUnclaimed(h, d.id());
                return moved;
            });
            if (done) return;
        }
        if (!deployments.requestCancel(d.id())) {
            throw ApiException.invalidState("Deployment " + d.id() + " is no longer queued or building");
        }
    }

    /**
     * The project is being deleted: its queued deployments end failed at once and its building ones are asked to
     * stop, inside the caller's transaction.
     */
    public void cancelAll(Handle h, String projectId) {
        for (String id : deployments.withStatus(h, projectId, DeploymentStatus.QUEUED)) {
            if (deployments.transition(h, id, DeploymentStatus.QUEUED, DeploymentStatus.FAILED, Level.ERROR,
                    "Deployment cancelled before it started: its project is being deleted")) {
                jobs.finishUnclaimed(h, id);
            }
        }
        deployments.requestCancelAll(h, projectId);
    }

    /** The project's variables with this deployment's overrides applied. */
    public Map<String, String> environment(Map<String, String> projectEnv, Deployment d) {
        Map<String, String> env = new LinkedHashMap<>(projectEnv);
        env.putAll(overrides(d));
        return env;
    }

    @SuppressWarnings("unchecked")
    public Map<String, String> overrides(Deployment d) {
        if (d.envOverridesEnc() == null) return Map.of();
        try {
            return Json.MAPPER.readValue(secrets.decrypt(d.envOverridesEnc()), Map.class);
        } catch (Exception e) {
            throw new IllegalStateException("cannot read the env overrides of " + d.id(), e);
        }
    }

    private String sealed(Map<String, String> env) {
        return env == null || env.isEmpty() ? null : secrets.encrypt(Json.write(env));
    }
}
