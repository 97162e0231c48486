package dev.slipway.migrations;

import dev.slipway.accounts.Account;
import dev.slipway.core.Ids;
import dev.slipway.databases.DatabaseService;
import dev.slipway.deployments.Deployment;
import dev.slipway.deployments.DeploymentService;
import dev.slipway.jobs.JobStore;
import dev.slipway.jobs.Workers;
import dev.slipway.logs.Level;
import dev.slipway.logs.LogStore;
import dev.slipway.projects.NewProject;
import dev.slipway.projects.Project;
import dev.slipway.projects.ProjectInput;
import dev.slipway.projects.ProjectStore;
import dev.slipway.runtime.InstanceType;
import dev.slipway.source.Upload;
import dev.slipway.source.UploadNames;
import org.jdbi.v3.core.Jdbi;

import java.time.Clock;

/**
 * A migration creates the project and its first deployment in one transaction; the deployment's
 * job does the work and completes (or fails) the migration when it is live (or fails).
 */
public final class MigrationService {
    private final Jdbi jdbi;
    private final MigrationStore migrations;
    private final ProjectStore projects;
    private final DeploymentService deployments;
    private final JobStore jobs;
    private final LogStore logs;
    private final Clock clock;
    private final Ids ids;
    private final Workers workers;
    private final DatabaseService databases;

    public MigrationService(Jdbi jdbi, MigrationStore migrations, ProjectStore projects,
                            DeploymentService deployments, JobStore jobs, LogStore logs, Clock clock,
                            Workers workers, DatabaseService databases) {
        this.jdbi = jdbi;
        this.migrations = migrations;
        this.projects = projects;
        this.deployments = deployments;
        this.jobs = jobs;
        this.logs = logs;
        this.clock = clock;
        this.ids = new Ids(clock);
        this.workers = workers;
        this.databases = databases;
    }

    public DatabaseService databases() {
        return databases;
    }

    /**
     * @param requestedName the project name asked for (checked free by the caller), or null: the name in the
     *                      zip's package.json or pyproject.toml, else its top folder, else the repository's, else app
     * @param type          the instance type asked for, or null: the tier's default unless the build's slipway.toml names one
     */
    public Migration start(Account account, String requestedName, ProjectInput input, Upload upload,
                           DatabaseService.Plan db, InstanceType type) {
        String name = requestedName != null ? requestedName : projects.freeName(upload != null
                ? UploadNames.of(upload.path(), input.rootDirectory()).map(ProjectInput::slug).orElse("app")
                : ProjectInput.nameFrom(input.source(), input.repo()));
        boolean slotFree = jobs.runningCount() < workers.slots()
                && jobs.runningCount(account.id()) < account.tier().buildsAtOnce();
        MigrationStatus status = slotFree ? MigrationStatus.PROCESSING : MigrationStatus.PENDING;
        String migrationId = ids.next("mig");
        Migration created = jdbi.inTransaction(h -> {
            Project project = projects.create(h, new NewProject(account.id(), name, input.source(), input.repo(),
                    input.branch(), input.framework(), input.region(), input.domain(), input.envVars(), input.rootDirectory(), input.hsts(),
                    input.dockerfilePath()));
            if (input.registryLogin() != null) projects.saveRegistryLogin(h, project.id(), input.registryLogin());
            projects.git().apply(h, project.id(), input.git());
            // the database is recorded (name, user, sealed password) before anything is made on a server
            String databaseId = db == null ? null : databases.record(h, account.id(), project.id(), migrationId, db);
            Deployment first = deployments.createBuild(h, project, null, null, upload == null ? null : upload.id(), migrationId,
                    type != null ? type : InstanceType.defaultFor(account.tier()));
            if (type != null) deployments.typeRequested(h, first.id());
            Migration m = new Migration(migrationId, account.id(), project.id(), first.id(), input.source(), input.repo(),
                    input.branch(), input.framework(), upload == null ? null : upload.id(),
                    db == null ? null : db.kind().label(), db == null ? null : db.action(), databaseId, status, clock.instant(),
                    slotFree ? clock.instant() : null, null);
            migrations.insert(h, m);
            logs.append(h, m.id(), Level.INFO, "Migration started: project " + project.name() + " (" + project.id()
                    + ") from " + (upload != null ? "upload " + upload.id() : input.source() + " " + input.repo()
                    + " branch " + input.branch()) + "; first deployment " + first.id()
                    + (databaseId == null ? "" : "; " + db.kind().label() + " database " + databaseId
                    + (db.action().equals("create") ? " to be provisioned" : " to be connected"))
                    + (slotFree ? "" : " (waiting for a free build slot: this server's, or one of the "
                    + account.tier().label() + " tier's " + account.tier().buildsAtOnce() + " at once)"));
            return m;
        });
        workers.wake();
        return created;
    }
}
