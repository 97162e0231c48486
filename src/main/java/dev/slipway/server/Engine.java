package dev.slipway.server;

import dev.slipway.deployments.DeploymentStatus;
import dev.slipway.config.IsolationSettings;
import dev.slipway.config.ServerConfig;
import dev.slipway.isolation.AccountAdmission;
import dev.slipway.isolation.Confinement;
import dev.slipway.isolation.Isolations;
import dev.slipway.isolation.NetworkPolicy;
import dev.slipway.isolation.ServersWithoutSandbox;
import dev.slipway.router.RecentRequests;
import dev.slipway.router.RouteTable;
import dev.slipway.images.ImageStore;
import dev.slipway.kubernetes.KubernetesClients;
import dev.slipway.kubernetes.KubernetesRuntime;
import dev.slipway.projects.Project;
import dev.slipway.runtime.AppRuntime;
import dev.slipway.runtime.InstanceStore;
import dev.slipway.runtime.local.LocalProcessRuntime;
import dev.slipway.runtime.NodeId;
import dev.slipway.runtime.RetiringPool;
import dev.slipway.wake.ProductionInstances;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.URI;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * The third phase, the data plane: how apps are confined, the runtime that runs them, their routes, and
 * the pool of replaced production apps kept warm. The apps listener that serves the routes starts last,
 * once the pipelines can wake a dormant app.
 *
 * @param recent when each app was last sent a request: a busy retired app is kept running
 */
public record Engine(Confinement confinement, AccountAdmission admission, InstanceStore instances, AppRuntime runtime,
                     RouteTable routes, RecentRequests recent, ProductionInstances production, RetiringPool retiring)
        implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Engine.class);

    /**
     * Starts choosing how apps are confined: the sandbox's start check runs a cell on a thread of its own while the
     * server opens its store.
     */
    static Isolations.Choice isolate(ServerConfig config, Listeners listeners) throws IOException {
        List<String> platform = new ArrayList<>(listeners.addresses());
        platform.add(Stores.storeUrl(config));
        String nodeId = NodeId.load(config.dataDir());
        IsolationSettings isolation = config.isolation();
        return Isolations.begin(isolation.mode(), Isolations.runDir(config.dataDir(), nodeId), nodeId,
                NetworkPolicy.of(platform, adminAddresses(config), buildAddresses(config), isolation.egressAllow()), isolation.warmNetworks(),
                isolation.sandbox());
    }

    static Engine start(ServerConfig config, Stores stores, Isolations.Choice isolation, Clock clock) throws IOException {
        InstanceStore instances = new InstanceStore(stores.database().jdbi(), stores.secrets(), clock, stores.nodeId());
        Confinement chosen = isolation.finish(stores.database().jdbi());
        AccountAdmission admission = AccountAdmission.forServer(chosen, stores.accounts(),
                new ServersWithoutSandbox(stores.database().jdbi(), clock), stores.nodeId());
        Confinement confinement = admission.guard(chosen, projectId -> stores.projects().find(projectId).map(Project::accountId));
        if (confinement.isolated()) LOG.info(confinement.summary());
        else LOG.warn(confinement.warning());
        AppRuntime runtime = runtime(config, stores, instances, confinement, clock);
        try {
            RouteTable routes = new RouteTable(config.listeners().appsDomain());
            RecentRequests recent = new RecentRequests(clock);
            ProductionInstances production = new ProductionInstances(stores.deployments(), runtime);
            RetiringPool retiring = new RetiringPool(runtime, instances, clock, config.runtime().retireAfter(),
                    production, routes::forgetUpstream, recent::lastMillis);
            return new Engine(confinement, admission, instances, runtime, routes, recent, production, retiring);
        } catch (RuntimeException e) {
            runtime.close();
            throw e;
        }
    }

    /** The local runtime, or with {@code --runtime=kubernetes} the cluster's (builds stay local, in the sandbox). */
    private static AppRuntime runtime(ServerConfig config, Stores stores, InstanceStore instances, Confinement confinement,
                                      Clock clock) {
        // the apps' output files hold what they print, secrets too, until read and masked: on the run dir's tmpfs,
        // never on the data dir's disk
        if (!config.kubernetes().enabled()) return new LocalProcessRuntime(instances, config.runtime(), clock, confinement,
                Isolations.outputDir(config.dataDir(), stores.nodeId()), config.dataDir().resolve("volumes"));
        if (!config.images().enabled()) {
            LOG.warn("--runtime=kubernetes without --image-registry: builds are not pushed, so no deployment can start");
        }
        ImageStore images = new ImageStore(stores.database().jdbi());
        LOG.info("apps run on Kubernetes ({} namespace mode, namespace {})", config.kubernetes().namespaces(),
                config.kubernetes().namespace());
        return new KubernetesRuntime(KubernetesClients.connect(config.kubernetes()), config.kubernetes(), config.isolation().egressAllow(),
                config.runtime(), clock,
                images::find, projectId -> stores.projects().find(projectId).map(Project::accountId)
                        .orElseThrow(() -> new IllegalStateException("project " + projectId + " does not exist")),
                deploymentId -> finished(stores, deploymentId));
    }

    /** A deployment that can never run again: failed, gone, or a rollback target whose build was pruned. */
    private static boolean finished(Stores stores, String deploymentId) {
        var d = stores.deployments().find(deploymentId);
        if (d.isEmpty()) return true;
        if (d.get().status() == DeploymentStatus.FAILED) return true;
        if (!DeploymentStatus.keepsArtifact().contains(d.get().status())) return false;
        return d.get().artifactId() != null && stores.artifacts().stats(d.get().artifactId()).isEmpty();
    }

    private static List<String> buildAddresses(ServerConfig config) {
        URI registry = config.build().npmRegistry();
        return registry == null ? List.of() : List.of(registry.toString());
    }

    private static List<String> adminAddresses(ServerConfig config) {
        List<String> out = new ArrayList<>();
        if (config.databaseAdmins().postgresUrl() != null) out.add(config.databaseAdmins().postgresUrl());
        if (config.databaseAdmins().mysqlUrl() != null) out.add(config.databaseAdmins().mysqlUrl());
        return out;
    }

    @Override
    public void close() {
        retiring.close();
        runtime.close();
    }

    /** As {@link #close}, the apps left running for the next start to adopt. */
    void leave() {
        retiring.close();
        runtime.leave();
    }
}
