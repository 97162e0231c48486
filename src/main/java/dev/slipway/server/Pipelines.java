package dev.slipway.server;

import dev.slipway.domains.DomainChecks;
import dev.slipway.domains.DomainProof;
import dev.slipway.domains.DomainRoutes;
import dev.slipway.api.AppUrls;
import dev.slipway.build.Builder;
import dev.slipway.build.steps.CommandRunner;
import dev.slipway.config.ServerConfig;
import dev.slipway.databases.AdminServers;
import dev.slipway.databases.DatabaseService;
import dev.slipway.cron.CronRunStore;
import dev.slipway.cron.CronRunner;
import dev.slipway.cron.CronScheduler;
import dev.slipway.cron.ProductionCron;
import dev.slipway.deployments.DeploymentRunner;
import dev.slipway.images.ImageBuilder;
import dev.slipway.images.ImageStore;
import dev.slipway.images.pull.ImagePull;
import dev.slipway.build.oci.Registries;
import dev.slipway.build.oci.Unpack;
import dev.slipway.build.docker.DockerfileBuild;
import dev.slipway.deployments.DeploymentService;
import dev.slipway.deployments.RouteRestorer;
import dev.slipway.deployments.WarmSwitches;
import dev.slipway.jobs.Job;
import dev.slipway.jobs.JobRunner;
import dev.slipway.jobs.Workers;
import dev.slipway.migrations.MigrationRecords;
import dev.slipway.migrations.MigrationService;
import dev.slipway.source.GitFetcher;
import dev.slipway.source.HostKeyStore;
import dev.slipway.source.ZipExtractor;
import dev.slipway.teardown.DeletedElsewhere;
import dev.slipway.deployments.ReplicaScaling;
import dev.slipway.deployments.RenamedProjects;
import dev.slipway.usage.UsageSampler;
import dev.slipway.alerts.Alerts;
import dev.slipway.usage.UsageStore;
import dev.slipway.drains.DrainShipper;
import dev.slipway.drains.DrainStore;
import dev.slipway.net.AddressGuard;
import dev.slipway.requestlogs.RequestLogStore;
import dev.slipway.requestlogs.RequestLogWriter;
import dev.slipway.teardown.Deletions;
import dev.slipway.teardown.ProjectTeardown;
import dev.slipway.teardown.TeardownStore;
import dev.slipway.wake.DormantApps;

import java.time.Clock;
import java.util.Map;

/**
 * The fourth phase: what turns a request into a running app. The services queue jobs and wake the
 * workers; the workers take no job until {@link #runners()} are handed to them after a restart's recovery.
 */
record Pipelines(DatabaseService databases, Workers workers, DeploymentService deployments,
                 MigrationService migrations, Builder builder, ZipExtractor zips, DeploymentRunner runner,
                 DormantApps dormant, RouteRestorer restorer, DomainChecks domains, DomainRoutes domainRoutes,
                 Deletions deletions, ProjectTeardown teardown, DeletedElsewhere deletedElsewhere, CronRunStore cronRuns,
                 CronScheduler cron, ReplicaScaling replicas, RenamedProjects renames, UsageStore usageStore,
                 UsageSampler usage, RequestLogStore requestLogs, RequestLogWriter requestLogWriter, DrainStore drains,
                 DrainShipper drainShipper) {

    static Pipelines create(ServerConfig config, Stores stores, Engine engine, AppUrls urls, Clock clock) {
        var jdbi = stores.database().jdbi();
        DatabaseService databases = new DatabaseService(jdbi,
                AdminServers.of(config.databaseAdmins().postgresUrl(), config.databaseAdmins().mysqlUrl()), stores.secrets(), stores.logs(),
                clock, stores.projectCache(), config.isolation().egressAllow());
        Workers workers = new Workers(stores.jobs(), config.deployments().buildSlots(), stores.nodeId(), clock);
        var serving = new DeploymentRunner.Serving(engine.runtime(), engine.routes(), engine.retiring(), urls);
        var switches = new WarmSwitches(serving, stores.deployments());
        DeploymentService deployments = new DeploymentService(stores.deployments(), stores.jobs(), stores.logs(),
                stores.secrets(), clock, engine.confinement().isolated(), workers, switches, id -> stores.artifacts().find(id).isPresent());
        MigrationService migrations = new MigrationService(jdbi, stores.migrations(), stores.projects(), deployments,
                stores.jobs(), stores.logs(), clock, workers, databases);
        Registries registries = new Registries(new Registries.Settings(config.images().insecure(), config.images().maxBytes(),
                config.dataDir().resolve("image-pulls"), config.build().commandTimeout()), clock);
        Unpack unpack = new Unpack(clock, config.build().commandTimeout());
        Builder builder = new Builder(config.build(), new CommandRunner(clock, engine.confinement()), stores.artifacts(), clock,
                new DockerfileBuild(registries, unpack, config.images().maxBytes(), config.build().cacheMb() * 1_000_000L,
                        config.images().registry()));
        ZipExtractor zips = new ZipExtractor(ZipExtractor.Limits.DEFAULTS);
        DeploymentRunner runner = new DeploymentRunner(new DeploymentRunner.Parts(new DeploymentRunner.Records(stores.deployments(), deployments,
                stores.projects(), new MigrationRecords(stores.migrations()), stores.logs(), databases),
                new DeploymentRunner.Sources(new GitFetcher(config.deployments().gitHosts(), GitFetcher.Limits.DEFAULTS, clock,
                        new HostKeyStore(jdbi, clock)),
                        stores.projects().git(), stores.uploads(), zips, config.dataDir().resolve("workspaces")),
                new DeploymentRunner.Builds(builder, stores.artifacts(), config.build().keepArtifacts(),
                        new ImageBuilder(config.images(), new ImageStore(jdbi), config.dataDir().resolve("image-cache"), clock),
                        new ImagePull(registries, unpack, stores.artifacts(),
                                config.build().artifactsDir(), config.dataDir().resolve("image-pulls"), config.images().maxBytes(), clock)),
                serving, switches, clock));
        DormantApps dormant = new DormantApps(new DormantApps.Parts(new DormantApps.Records(stores.deployments(),
                deployments, stores.projects(), stores.artifacts(), databases, stores.logs()),
                new DormantApps.Serving(engine.runtime(), engine.routes(), engine.retiring(), engine.production()), clock));
        RouteRestorer restorer = new RouteRestorer(stores.deployments(), stores.projects(), stores.artifacts(),
                engine.runtime(), engine.routes());
        DomainChecks domains = new DomainChecks(stores.projects(), new DomainProof(config.domains()), engine.routes(),
                config.domains(), clock);
        DomainRoutes domainRoutes = new DomainRoutes(stores.projects(), engine.routes());
        stores.projectCache().follow(domainRoutes);
        CronRunStore cronRuns = new CronRunStore(jdbi, clock);
        CronRunner cronRunner = new CronRunner(new CronRunner.Parts(stores.deployments(), deployments, stores.projects(), databases,
                stores.artifacts(), stores.logs(), engine.runtime().releaseCommands(), cronRuns), CronRunner.TIMEOUT);
        CronScheduler cron = new CronScheduler(new ProductionCron(jdbi), cronRuns, cronRunner::run, stores.nodeId(), clock);
        TeardownStore teardowns = new TeardownStore(jdbi, clock);
        ProjectTeardown teardown = new ProjectTeardown(new ProjectTeardown.Parts(teardowns, engine.runtime(), engine.routes(),
                stores.artifacts(), stores.uploads(), databases, stores.logs(), stores.projectCache(), config.build()::cacheDir,
                stores.nodeId(), cron::stop));
        DeletedElsewhere deletedElsewhere = new DeletedElsewhere(teardowns, engine.routes(), engine.runtime());
        stores.projectCache().follow(deletedElsewhere);
        ReplicaScaling replicas = new ReplicaScaling(stores.projects(), stores.deployments(), stores.artifacts(), stores.logs(),
                engine.runtime(), engine.routes());
        stores.projectCache().follow(replicas);
        RenamedProjects renames = new RenamedProjects(stores.projects(), engine.routes());
        stores.projectCache().follow(renames);
        UsageStore usageStore = new UsageStore(jdbi, stores.nodeId());
        Alerts alerts = new Alerts(jdbi, new dev.slipway.alerts.AlertRuleStore(jdbi), stores.outbox(), stores.nodeId(), clock);
        UsageSampler usage = new UsageSampler(engine.runtime(), engine.recent().stats(), stores.deployments(), usageStore, clock,
                alerts::evaluate);
        RequestLogStore requestLogs = new RequestLogStore(jdbi);
        RequestLogWriter requestLogWriter = new RequestLogWriter(engine.recent().log(), engine.runtime(), requestLogs, clock);
        DrainStore drains = new DrainStore(jdbi, stores.secrets());
        DrainShipper drainShipper = new DrainShipper(drains, new AddressGuard(config.webhooks().allowPrivate()), stores.nodeId(), clock);
        return new Pipelines(databases, workers, deployments, migrations, builder, zips, runner, dormant, restorer, domains,
                domainRoutes, new Deletions(teardowns, deployments, workers, engine.routes(), stores.projectCache()), teardown,
                deletedElsewhere, cronRuns, cron, replicas, renames, usageStore, usage,
                requestLogs, requestLogWriter, drains, drainShipper);
    }

    Map<String, JobRunner> runners() {
        return Map.of(Job.DEPLOYMENT, runner, Job.PROJECT_DELETION, teardown);
    }
}
