package dev.slipway.kubernetes;

import dev.slipway.build.ImageRun;
import dev.slipway.isolation.CellUsage;
import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;
import dev.slipway.net.Cidr;
import dev.slipway.net.EgressAllow;
import dev.slipway.runtime.AppRuntime;
import dev.slipway.runtime.ProcessState;
import dev.slipway.runtime.AppSpec;
import dev.slipway.runtime.Instance;
import dev.slipway.runtime.ProductionAddresses;
import dev.slipway.runtime.RecoveryReport;
import dev.slipway.runtime.ReleaseCommands;
import dev.slipway.runtime.RetirementSchedule;
import dev.slipway.runtime.RuntimeSettings;
import dev.slipway.runtime.StartFailedException;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.dsl.RollableScalableResource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Runs each deployment as a Kubernetes Deployment of its OCI image, with a Secret, a Service and a
 * NetworkPolicy; production is a per-project Service whose selector moves ({@link ProductionSwitch}), and a
 * retirement's stop time is kept on its Deployment: the runtime is its own {@link ProductionAddresses} and
 * {@link RetirementSchedule}.
 * The cluster is the state: what this server keeps is a cache of addresses, read again from the API
 * whenever a caller asks for an instance, so any server on the same store and cluster sees the same apps.
 * An {@link Instance} here has the Service's cluster IP and port, and pid 0 (no local process).
 */
public final class KubernetesRuntime implements AppRuntime, ProductionAddresses, RetirementSchedule {
    private static final Logger LOG = LoggerFactory.getLogger(KubernetesRuntime.class);
    /** How long a new Service may wait for its cluster IP. */
    private static final Duration ADDRESS_WAIT = Duration.ofSeconds(10);

    private final KubernetesClient client;
    private final KubernetesSettings settings;
    private final List<Cidr> clusterRanges;
    private final EgressAllow egressAllow;
    private final RuntimeSettings options;
    private final Clock clock;
    private final Function<String, Optional<String>> imageOfArtifact;
    private final Function<String, String> accountOfProject;
    private final Namespaces namespaces;
    private final PodUsage pods;
    /** Deployment id to what this server last read of it. */
    private final Map<String, Known> known = new ConcurrentHashMap<>();
    /** Service port to deployment id: {@link #serves} is asked on every request, without a call to the API. */
    private final Map<Integer, String> byPort = new ConcurrentHashMap<>();
    private final Set<String> stopping = ConcurrentHashMap.newKeySet();
    private final Map<String, AutoCloseable> logFollowers = new ConcurrentHashMap<>();
    private final Map<String, Object> locks = new ConcurrentHashMap<>();

    private record Known(String namespace, Instance instance) {}

    /** How often each server looks for the objects of deployments that can never run again. */
    static final Duration SWEEP_EVERY = Duration.ofMinutes(1);
    private final Predicate<String> finished;
    private final ScheduledExecutorService sweeper = Executors
            .newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("kubernetes-sweeper").factory());

    /**
     * @param egressAllow      the private addresses the operator lets apps reach: a database there gets its rule
     * @param imageOfArtifact  the pushed image of a build ({@code <repository>@sha256:…}), if any
     * @param accountOfProject the account a project belongs to (labels, and its namespace when one per account)
     * @param finished         a deployment that can never run again (failed, gone from the store, or its build
     *                         pruned, so no rollback can reach it): {@link #sweep} deletes its objects
     */
    public KubernetesRuntime(KubernetesClient client, KubernetesSettings settings, EgressAllow egressAllow,
                             RuntimeSettings options, Clock clock, Function<String, Optional<String>> imageOfArtifact,
                             Function<String, String> accountOfProject, Predicate<String> finished) {
        this.finished = finished;
        this.client = client;
        this.pods = new PodUsage(client, clock);
        this.settings = settings;
        this.clusterRanges = settings.clusterCidrs().stream().map(Cidr::parse).toList();
        this.egressAllow = egressAllow;
        this.options = options;
        this.clock = clock;
        this.imageOfArtifact = imageOfArtifact;
        this.accountOfProject = accountOfProject;
        this.namespaces = new Namespaces(client, settings);
    }

    @Override
    public Instance start(AppSpec spec, LogSink log) {
        synchronized (lock(spec.deploymentId())) {
            Optional<Instance> existing = get(spec.deploymentId());
            if (existing.isPresent()) return existing.get();
            return startNew(spec, log);
        }
    }

    private Instance startNew(AppSpec spec, LogSink log) {
        // a prebuilt image, or one built from a Dockerfile and pushed, is its own reference; a native build's is recorded
        String image = Optional.ofNullable(spec.artifact().image()).map(ImageRun::reference)
                .or(() -> imageOfArtifact.apply(spec.artifact().id())).orElseThrow(() -> new StartFailedException(
                "This server runs apps on Kubernetes, which runs images: the build " + spec.artifact().id()
                        + " has none. Set SLIPWAY_IMAGE_REGISTRY (--image-registry) so that builds are pushed, then deploy again"));
        String account = accountOfProject.apply(spec.projectId());
        String ns;
        try {
            ns = namespaces.ensure(account);
        } catch (KubernetesClientException e) {
            throw new StartFailedException("The Kubernetes API refused the namespace of account " + account + ": " + reason(e), e);
        }
        String name = Names.deployment(spec.deploymentId());
        Map<String, String> labels = Names.labels(account, spec.projectId(), spec.deploymentId());
        Deployment existing = client.apps().deployments().inNamespace(ns).withName(name).get();
        try {
            if (existing != null) {
                // a retired or dormant deployment: its objects are kept, it is scaled back up
                log.log(Level.INFO, "Scaling " + ns + "/" + name + " back up from zero");
                Scaling.scale(client, ns, name, spec.replicas());
            } else {
                write(spec, log, image, ns, labels);
            }
        } catch (KubernetesClientException e) {
            String message = "The Kubernetes API refused the objects of " + name + ": " + reason(e);
            log.log(Level.ERROR, message);
            deleteObjects(ns, spec.deploymentId());
            throw new StartFailedException(message, e);
        }
        follow(spec, log, ns);
        try {
            PodHealth.awaitReady(client, ns, name, options.healthTimeout(), log, clock);
            ServiceAddress a = ServiceAddress.await(client, ns, name, ADDRESS_WAIT);
            Instance instance = new Instance(spec.deploymentId(), spec.projectId(), a.host(), a.port(), 0, clock.instant());
            track(ns, instance);
            log.log(Level.INFO, "A pod of " + name + " is ready; its Service is " + a.host() + ":" + a.port());
            return instance;
        } catch (RuntimeException e) {
            unfollow(spec.deploymentId());
            if (existing == null) deleteObjects(ns, spec.deploymentId());
            else Scaling.scale(client, ns, name, 0);
            if (e instanceof StartFailedException s) throw s;
            String message = "The app did not start on Kubernetes: " + e.getMessage();
            log.log(Level.ERROR, message);
            throw new StartFailedException(message, e);
        }
    }

    /** The Secret first (the pods read it at start), then the NetworkPolicy, the Service and the Deployment. */
    private void write(AppSpec spec, LogSink log, String image, String ns, Map<String, String> labels) {
        String id = spec.deploymentId();
        client.secrets().resource(AppSecret.build(ns, labels, id, spec.env())).createOr(op -> op.update());
        DatabaseAddress.Rules database = DatabaseAddress.of(spec.database(), clusterRanges, egressAllow);
        if (!database.refused().isEmpty()) {
            log.log(Level.WARNING, "No egress rule to the project's database at " + spec.database() + ": "
                    + String.join(", ", database.refused()) + ". A database inside the cluster or at a private, link-local "
                    + "or metadata address is reached only on a database server the operator configured, or at an "
                    + "address listed in " + EgressAllow.VARIABLE);
        }
        client.network().v1().networkPolicies().resource(AppNetworkPolicy.build(ns, labels, id, settings.routerNamespace(),
                settings.clusterCidrs(), database.allowed())).createOr(op -> op.update());
        if (client.services().inNamespace(ns).withName(Names.deployment(id)).get() == null) {
            int port = ServicePorts.pick(client, ns, namespaces.perAccount(), Names.deployment(id));
            client.services().resource(AppService.forDeployment(ns, labels, id, port)).create();
        }
        for (dev.slipway.runtime.Volume v : spec.volumes()) {
            String claim = Names.volume(spec.projectId(), v.name());
            if (client.persistentVolumeClaims().inNamespace(ns).withName(claim).get() != null) continue; // kept across deploys
            client.persistentVolumeClaims().resource(new io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder()
                    .withNewMetadata().withName(claim).withNamespace(ns)
                        .withLabels(Map.of(Names.MANAGED_BY, Names.SLIPWAY, Names.PROJECT, spec.projectId())).endMetadata()
                    .withNewSpec()
                        // more than one instance mounts it at once, possibly on several nodes
                        .withAccessModes(spec.replicas() > 1 ? "ReadWriteMany" : "ReadWriteOnce")
                        .withNewResources().addToRequests("storage", new io.fabric8.kubernetes.api.model.Quantity(v.sizeMb() + "Mi")).endResources()
                    .endSpec().build()).create();
            log.log(Level.INFO, "Volume " + v.name() + " is the claim " + ns + "/" + claim + " (" + v.sizeMb() + " MB)");
        }
        client.apps().deployments().resource(AppDeployment.build(ns, labels, id, image, spec.instanceType(), options.stopGrace(),
                spec.replicas(), spec.projectId(), spec.volumes())).createOr(op -> op.update());
        log.log(Level.INFO, "Starting " + image + " as " + ns + "/" + Names.deployment(id) + " (" + spec.instanceType().label()
                + ": " + spec.instanceType().memoryMb() + " MB, " + spec.instanceType().cpuMillis() + " mCPU)");
    }

    @Override
    public Optional<ProductionAddresses> productionAddresses() {
        return Optional.of(this);
    }

    @Override
    public Optional<RetirementSchedule> retirementSchedule() {
        return Optional.of(this);
    }

    /** None yet: a release command would be a Job of the image; a deployment whose Procfile has one fails saying so. */
    @Override
    public Optional<ReleaseCommands> releaseCommands() {
        return Optional.empty();
    }

    /** Not yet: each would be a Deployment of the same image with its own command. */
    @Override
    public boolean runsWorkers() {
        return false;
    }

    @Override
    public List<ProcessState> processes(String deploymentId) {
        return get(deploymentId).map(i -> {
            int crashes = namespaceOf(deploymentId).map(ns -> pods.crashesInARow(ns, deploymentId)).orElse(0);
            return List.of(new ProcessState(ProcessState.WEB, crashes > 0 ? "crashed" : "running", crashes));
        }).orElse(List.of());
    }

    /** From the cluster's metrics API and the pods' statuses ({@link PodUsage}). */
    @Override
    public Optional<CellUsage> usage(String deploymentId) {
        return namespaceOf(deploymentId).flatMap(ns -> pods.read(ns, deploymentId));
    }

    /** Every server sees every pod: one of them at a time reports their usage. */
    @Override
    public boolean sharedUsage() {
        return true;
    }

    @Override
    public Instance switchProduction(String projectId, String deploymentId) {
        String ns = namespaceOf(deploymentId).orElseThrow(() ->
                new IllegalStateException("deployment " + deploymentId + " has no Deployment in the cluster"));
        String account = accountOfProject.apply(projectId);
        String before = ProductionSwitch.switchTo(client, ns, account, projectId, deploymentId, namespaces.perAccount());
        LOG.info("production of {} now selects {} (was {})", projectId, deploymentId, before);
        ServiceAddress a = ServiceAddress.await(client, ns, Names.production(projectId), ADDRESS_WAIT);
        // the production port is served while the deployment it selects is
        byPort.put(a.port(), deploymentId);
        return new Instance(deploymentId, projectId, a.host(), a.port(), 0, clock.instant());
    }

    @Override
    public Optional<Instance> production(String projectId) {
        String ns = namespaces.of(accountOfProject.apply(projectId));
        Service s = client.services().inNamespace(ns).withName(Names.production(projectId)).get();
        String selected = s == null || s.getSpec() == null || s.getSpec().getSelector() == null ? null
                : s.getSpec().getSelector().get(Names.DEPLOYMENT);
        if (selected == null) return Optional.empty();
        return ServiceAddress.of(s).map(a -> {
            byPort.put(a.port(), selected);
            return new Instance(selected, projectId, a.host(), a.port(), 0, clock.instant());
        });
    }

    /** The project's claims, in whichever namespace; its Deployments are gone by then. */
    @Override
    public void deleteVolumes(String projectId) {
        String ns = namespaces.ensure(accountOfProject.apply(projectId));
        for (var claim : client.persistentVolumeClaims().inNamespace(ns).withLabel(Names.PROJECT, projectId)
                .withLabel(Names.MANAGED_BY, Names.SLIPWAY).list().getItems()) {
            client.persistentVolumeClaims().inNamespace(ns).withName(claim.getMetadata().getName()).delete();
        }
    }

    /** Its Deployment's replicas; the Service balances between the ready pods. */
    @Override
    public Optional<Instance> scale(String deploymentId, int replicas, LogSink log) {
        Optional<String> ns = namespaceOf(deploymentId);
        if (ns.isEmpty() || get(deploymentId).isEmpty()) return Optional.empty();
        log.log(Level.INFO, "Scaling " + ns.get() + "/" + Names.deployment(deploymentId) + " to " + replicas + " replicas");
        Scaling.scale(client, ns.get(), Names.deployment(deploymentId), replicas);
        return get(deploymentId);
    }

    @Override
    public Optional<Instance> get(String deploymentId) {
        Optional<String> ns = namespaceOf(deploymentId);
        if (ns.isEmpty()) {
            forget(deploymentId);
            return Optional.empty();
        }
        String name = Names.deployment(deploymentId);
        Deployment d = client.apps().deployments().inNamespace(ns.get()).withName(name).get();
        if (d == null || Scaling.replicas(d) == 0) {
            forget(deploymentId);
            return Optional.empty();
        }
        Known k = known.get(deploymentId);
        if (k != null && k.namespace().equals(ns.get())) return Optional.of(k.instance());
        return ServiceAddress.of(client.services().inNamespace(ns.get()).withName(name).get()).map(a -> {
            Instance i = new Instance(deploymentId, label(d, Names.PROJECT), a.host(), a.port(), 0, created(d));
            track(ns.get(), i);
            return i;
        });
    }

    @Override
    public Optional<Instance> active(String deploymentId) {
        if (stopping.contains(deploymentId)) return Optional.empty();
        return get(deploymentId);
    }

    /** Scales the deployment to zero and keeps its objects: a cold rollback or a wake-up scales it up again. */
    @Override
    public void stop(String deploymentId) {
        synchronized (lock(deploymentId)) {
            stopping.add(deploymentId);
            try {
                unfollow(deploymentId);
                namespaceOf(deploymentId).ifPresent(ns -> Scaling.scale(client, ns, Names.deployment(deploymentId), 0));
                forget(deploymentId);
            } finally {
                stopping.remove(deploymentId);
            }
        }
    }

    /** On the Deployment (an annotation), so that a restarted server, or another one, resumes the retirement. */
    @Override
    public void retiringUntil(String deploymentId, Instant stopAt) {
        namespaceOf(deploymentId).ifPresent(ns -> Scaling.retireAt(client, ns, Names.deployment(deploymentId), stopAt));
    }

    @Override
    public Map<String, Instant> retirements() {
        Map<String, Instant> out = new TreeMap<>();
        for (Deployment d : managed().list().getItems()) {
            Instant at = Scaling.stopAfter(d);
            String id = label(d, Names.DEPLOYMENT);
            if (at != null && id != null && Scaling.replicas(d) > 0) out.put(id, at);
        }
        return out;
    }

    /** Deletes the deployment's objects (Deployment, Service, NetworkPolicy, Secret). */
    public void delete(String deploymentId) {
        synchronized (lock(deploymentId)) {
            Optional<String> ns = namespaceOf(deploymentId);
            stop(deploymentId);
            ns.ifPresent(n -> deleteObjects(n, deploymentId));
        }
    }

    /**
     * Deletes the objects of every deployment that can never run again: a failed deployment (whose start
     * succeeded but which failed after, or was left scaled to zero), one deleted from the store, or one whose
     * build was pruned. Never the one a production Service selects. Returns the deployment ids swept.
     */
    public List<String> sweep() {
        List<String> swept = new ArrayList<>();
        for (Deployment d : managed().list().getItems()) {
            String id = label(d, Names.DEPLOYMENT);
            if (id == null || !finished.test(id)) continue;
            String project = label(d, Names.PROJECT);
            Service prod = project == null ? null
                    : client.services().inNamespace(d.getMetadata().getNamespace()).withName(Names.production(project)).get();
            if (prod != null && prod.getSpec() != null && prod.getSpec().getSelector() != null
                    && id.equals(prod.getSpec().getSelector().get(Names.DEPLOYMENT))) continue;
            delete(id);
            swept.add(id);
        }
        if (!swept.isEmpty()) LOG.info("deleted the objects of {} deployment(s) that can no longer run: {}", swept.size(), swept);
        return swept;
    }

    private void sweepQuietly() {
        try {
            sweep();
        } catch (RuntimeException e) {
            LOG.warn("sweeping the objects of finished deployments failed: {}", e.getMessage());
        }
    }

    /** Deletes every deployment of the project and its production Service. */
    public void deleteProject(String projectId) {
        var deployments = managed().withLabel(Names.PROJECT, projectId).list().getItems();
        for (Deployment d : deployments) delete(label(d, Names.DEPLOYMENT));
        String ns = namespaces.of(accountOfProject.apply(projectId));
        client.services().inNamespace(ns).withName(Names.production(projectId)).delete();
    }

    private void deleteObjects(String ns, String deploymentId) {
        String name = Names.deployment(deploymentId);
        try {
            client.apps().deployments().inNamespace(ns).withName(name).delete();
            client.services().inNamespace(ns).withName(name).delete();
            client.network().v1().networkPolicies().inNamespace(ns).withName(name).delete();
            client.secrets().inNamespace(ns).withName(Names.secret(deploymentId)).delete();
        } catch (KubernetesClientException e) {
            LOG.warn("deleting the objects of {} failed: {}", name, reason(e));
        }
    }

    @Override
    public List<Instance> list() {
        List<Instance> out = new ArrayList<>();
        for (Deployment d : managed().list().getItems()) {
            if (Scaling.replicas(d) == 0) continue;
            get(label(d, Names.DEPLOYMENT)).ifPresent(out::add);
        }
        out.sort(Comparator.comparing(Instance::deploymentId));
        return out;
    }

    /**
     * The cluster kept running while this server was down: nothing is started or killed, the view is read
     * from the labels. Deployments with a ready replica count as running; the others as failing.
     */
    @Override
    public RecoveryReport recover(Function<String, LogSink> logs) {
        List<Instance> running = new ArrayList<>();
        List<String> failing = new ArrayList<>();
        for (Deployment d : managed().list().getItems()) {
            if (Scaling.replicas(d) == 0) continue;
            String id = label(d, Names.DEPLOYMENT);
            Optional<Instance> i = get(id);
            if (i.isEmpty()) continue;
            Integer ready = d.getStatus() == null ? null : d.getStatus().getReadyReplicas();
            if (ready != null && ready > 0) running.add(i.get());
            else failing.add(id);
            followRecovered(d.getMetadata().getNamespace(), id, logs.apply(id));
        }
        LOG.info("kubernetes runtime: {} deployment(s) found running, {} not ready", running.size(), failing.size());
        sweepQuietly();
        sweeper.scheduleWithFixedDelay(this::sweepQuietly, SWEEP_EVERY.toMillis(), SWEEP_EVERY.toMillis(),
                TimeUnit.MILLISECONDS);
        return new RecoveryReport(0, List.copyOf(running), List.copyOf(failing));
    }

    /** Kubernetes restarts crashed containers itself; the router answers 502 while no pod is ready. */
    @Override
    public boolean restarting(int port) {
        return false;
    }

    @Override
    public boolean serves(int port) {
        String id = byPort.get(port);
        return id != null && !stopping.contains(id);
    }

    @Override
    public boolean isolated() {
        return true;
    }

    @Override
    public List<String> regions() {
        return options.regions();
    }

    @Override
    public String instanceType() {
        return "kubernetes";
    }

    /** Stops following logs and closes the client; the apps keep running in the cluster. */
    @Override
    public void close() {
        sweeper.shutdownNow();
        for (String id : List.copyOf(logFollowers.keySet())) unfollow(id);
        client.close();
    }

    private Optional<String> namespaceOf(String deploymentId) {
        Known k = known.get(deploymentId);
        if (k != null) return Optional.of(k.namespace());
        if (!namespaces.perAccount()) return Optional.of(settings.namespace());
        return client.apps().deployments().inAnyNamespace().withLabel(Names.DEPLOYMENT, deploymentId).list().getItems()
                .stream().map(d -> d.getMetadata().getNamespace()).findFirst();
    }

    private FilterWatchListDeletable<Deployment, DeploymentList,
            RollableScalableResource<Deployment>> managed() {
        return namespaces.perAccount()
                ? client.apps().deployments().inAnyNamespace().withLabel(Names.MANAGED_BY, Names.SLIPWAY)
                : client.apps().deployments().inNamespace(settings.namespace()).withLabel(Names.MANAGED_BY, Names.SLIPWAY);
    }

    private void track(String ns, Instance i) {
        Known before = known.put(i.deploymentId(), new Known(ns, i));
        if (before != null && before.instance().port() != i.port()) byPort.remove(before.instance().port(), i.deploymentId());
        byPort.put(i.port(), i.deploymentId());
    }

    private void forget(String deploymentId) {
        known.remove(deploymentId);
        byPort.values().removeIf(deploymentId::equals);
    }

    private void follow(AppSpec spec, LogSink log, String ns) {
        unfollow(spec.deploymentId());
        try {
            logFollowers.put(spec.deploymentId(), PodLogs.follow(client, ns, Names.selectorString(spec.deploymentId()), log,
                    spec.secretValues()));
        } catch (RuntimeException e) {
            log.log(Level.WARNING, "The app's output cannot be followed: " + e.getMessage());
        }
    }

    /** After a restart the secret values are not known here; the store's sink masks what it was given. */
    private void followRecovered(String ns, String deploymentId, LogSink log) {
        try {
            logFollowers.put(deploymentId, PodLogs.follow(client, ns, Names.selectorString(deploymentId), log, Set.of()));
        } catch (RuntimeException e) {
            LOG.warn("following the logs of {} failed: {}", deploymentId, e.getMessage());
        }
    }

    private void unfollow(String deploymentId) {
        AutoCloseable f = logFollowers.remove(deploymentId);
        if (f == null) return;
        try {
            f.close();
        } catch (Exception e) {
            LOG.debug("closing the log follower of {}: {}", deploymentId, e.toString());
        }
    }

    private Object lock(String deploymentId) {
        return locks.computeIfAbsent(deploymentId, k -> new Object());
    }

    private static String label(Deployment d, String key) {
        return d.getMetadata().getLabels() == null ? null : d.getMetadata().getLabels().get(key);
    }

    private Instant created(Deployment d) {
        String ts = d.getMetadata().getCreationTimestamp();
        try {
            return ts == null ? clock.instant() : Instant.parse(ts);
        } catch (RuntimeException e) {
            return clock.instant();
        }
    }

    private static String reason(KubernetesClientException e) {
        if (e.getStatus() != null && e.getStatus().getMessage() != null) return e.getStatus().getMessage();
        return e.getMessage();
    }
}
