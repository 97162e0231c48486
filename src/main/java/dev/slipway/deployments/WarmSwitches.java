package dev.slipway.deployments;

import dev.slipway.projects.Project;
import dev.slipway.router.Target;
import dev.slipway.runtime.Instance;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A rollback to an app still running here is a route switch: production's route moves to it
 * before the run's store work (its environment, the build's record, the state changes and their log lines,
 * which stay exactly as they were). The rollback's POST makes the switch right after its commit when this
 * server took the job at once ({@link #switchNow}); the job takes it over ({@link #take}), or makes it at
 * its claim when another server queued it. A run that does not get to live puts the previous route back
 * ({@link #undo}).
 */
public final class WarmSwitches {
    private static final Logger LOG = LoggerFactory.getLogger(WarmSwitches.class);

    /** Production's route before the switch, and whether the switch took the target's process out of retirement. */
    record Switch(Project project, Optional<Target> before, String owner, boolean reinstated, String previousOwner) {}

    private final DeploymentRunner.Serving serving;
    private final DeploymentStore deployments;
    private final Map<String, Switch> made = new ConcurrentHashMap<>();

    public WarmSwitches(DeploymentRunner.Serving serving, DeploymentStore deployments) {
        this.serving = serving;
        this.deployments = deployments;
    }

    /** Whether the app of {@code target} runs here, so that a rollback to it is a switch, not a start. */
    boolean warm(Deployment target) {
        return serving.runtime().get(instanceOwner(target.id())).isPresent();
    }

    /** The POST's switch for rollback {@code d}, kept for its job, which this server runs. */
    void switchNow(Deployment d, Project project) {
        Switch s = make(d, project);
        if (s != null) made.put(d.id(), s);
    }

    /** The switch the POST made for {@code d}, or a new one on the job's first attempt; null when not warm. */
    Switch take(Deployment d, Project project, int attempt) {
        Switch s = made.remove(d.id());
        return s != null || attempt > 1 ? s : make(d, project);
    }

    private Switch make(Deployment d, Project project) {
        if (d.rollbackOf() == null) return null;
        String owner = instanceOwner(d.rollbackOf());
        var instance = serving.runtime().get(owner);
        if (instance.isEmpty()) return null;
        Optional<Target> before = serving.routes().production(project.name());
        String previousOwner = project.productionDeploymentId() == null ? null : instanceOwner(project.productionDeploymentId());
        serving.routes().setProduction(project.name(), production(project, instance.get()));
        return new Switch(project, before, owner, serving.retiring().reinstate(owner), previousOwner);
    }

    /** Puts back the route the POST switched for {@code deploymentId}, whose run will not go live (it was cancelled). */
    void abandon(String deploymentId) {
        Switch s = made.remove(deploymentId);
        if (s != null) undo(s);
    }

    void undo(Switch warm) {
        Project project = warm.project();
        try {
            warm.before().ifPresentOrElse(t -> serving.routes().setProduction(project.name(), t),
                    () -> serving.routes().removeProduction(project.name()));
            if (warm.previousOwner() != null && serving.runtime().get(warm.previousOwner()).isPresent()) {
                serving.runtime().productionAddresses().ifPresent(a -> a.switchProduction(project.id(), warm.previousOwner()));
            }
            if (warm.reinstated()) serving.retiring().retire(warm.owner());
        } catch (RuntimeException e) {
            LOG.warn("putting back the route of {} after a failed rollback failed: {}", project.name(), e.toString());
        }
    }

    /**
     * Production's target for an instance: the runtime's production address when it has one (the Kubernetes
     * runtime moves the project Service's selector to the instance's pods), else the instance itself.
     */
    private Target production(Project project, Instance instance) {
        return serving.runtime().productionAddresses().map(a -> a.switchProduction(project.id(), instance.deploymentId()))
                .<Target>map(i -> Target.app(i.host(), i.ports()))
                .orElseGet(() -> Target.app(instance.host(), instance.ports()));
    }

    /** The deployment whose process serves {@code deploymentId}: itself, or the target it rolled back to. */
    String instanceOwner(String deploymentId) {
        if (serving.runtime().get(deploymentId).isPresent()) return deploymentId;
        return deployments.find(deploymentId).map(Deployment::rollbackOf)
                .filter(t -> serving.runtime().get(t).isPresent()).orElse(deploymentId);
    }
}
