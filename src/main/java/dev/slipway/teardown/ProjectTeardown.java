package dev.slipway.teardown;

import dev.slipway.build.ArtifactStore;
import dev.slipway.build.Trees;
import dev.slipway.databases.DatabaseService;
import dev.slipway.jobs.Job;
import dev.slipway.jobs.JobRunner;
import dev.slipway.logs.LogStore;
import dev.slipway.projects.ProjectChanges;
import dev.slipway.router.RouteTable;
import dev.slipway.runtime.AppRuntime;
import dev.slipway.source.UploadStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The job that deletes a project marked deleting: its addresses, its apps (production, previews, those kept warm),
 * its cron runs under way, its volumes, its database when asked, its builds, uploads and caches, then every row that
 * names it. Each step finds what is
 * left and removes that, so a run cut short (a crash, a lost lease) is finished by the next one.
 */
public final class ProjectTeardown implements JobRunner {
    private static final Logger LOG = LoggerFactory.getLogger(ProjectTeardown.class);

    /** What the teardown removes things through. */
    public record Parts(TeardownStore store, AppRuntime runtime, RouteTable routes, ArtifactStore artifacts,
                        UploadStore uploads, DatabaseService databases, LogStore logs, ProjectChanges changes,
                        Function<String, Path> cacheDir, String nodeId, Consumer<String> stopCron) {}

    private final Parts parts;

    public ProjectTeardown(Parts parts) {
        this.parts = parts;
    }

    @Override
    public void run(Job job, Lease lease) throws IOException {
        var found = parts.store().find(job.subjectId());
        if (found.isEmpty() || !found.get().deleting()) return; // gone already, or never asked (nothing to do)
        TeardownStore.Marked p = found.get();
        LOG.info("deleting project {} ({}), attempt {}", p.id(), p.name(), job.attempts());
        parts.routes().removeProject(p.name());
        parts.stopCron().accept(p.id()); // its runs under way here; no new one starts: its production is hidden
        List<TeardownStore.Run> runs = parts.store().runs(p.id());
        for (TeardownStore.Run run : runs) {
            if (!lease.held()) return;
            parts.runtime().stop(run.id()); // a no-op for one that does not run
        }
        List<String> elsewhere = parts.store().instancesElsewhere(p.id(), parts.nodeId());
        if (!elsewhere.isEmpty()) {
            LOG.warn("project {}: deployments {} run on another server; it stops them when it next starts", p.id(), elsewhere);
        }
        if (!lease.held()) return;
        parts.runtime().deleteVolumes(p.id());
        parts.databases().removeForProject(p.id(), p.deleteDatabase()).ifPresent(kept ->
                LOG.info("project {}: its {} is kept with its data (the deletion did not ask to delete it)", p.id(), kept));
        int builds = parts.artifacts().deleteForProject(p.id());
        int uploads = parts.uploads().deleteUsedOnlyBy(p.id());
        Trees.delete(parts.cacheDir().apply(p.id()));
        if (!lease.held()) return;
        parts.logs().flush(); // its deployments' buffered lines, before their rows go
        parts.store().forget(p.id(), job.id());
        parts.changes().changed(p.id());
        LOG.info("deleted project {} ({}): {} deployment(s), {} build(s), {} upload(s)", p.id(), p.name(), runs.size(),
                builds, uploads);
    }
}
