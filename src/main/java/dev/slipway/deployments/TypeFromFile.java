package dev.slipway.deployments;

import dev.slipway.appconfig.AppConfig;
import dev.slipway.appconfig.RepoConfig;
import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;
import dev.slipway.projects.Project;
import dev.slipway.runtime.InstanceType;
import dev.slipway.runtime.StartFailedException;

/**
 * A deployment's instance type once its build's {@code slipway.toml} is read. The order is: the request's type, the
 * project's own, the file's {@code [run] instance_type}, then production's or the tier's default (chosen at queue
 * time). A deployment that runs another's build keeps the type it was given.
 */
final class TypeFromFile {
    private TypeFromFile() {}

    static InstanceType choose(Deployment d, Project project, RepoConfig config, DeploymentStore store, LogSink log) {
        InstanceType queued = InstanceType.of(d.instanceType());
        String label = config.instanceType();
        if (label == null || d.reusesBuildOf() != null || label.equals(queued.label())) return queued;
        if (project.run().instanceType() != null) {
            log.log(Level.INFO, AppConfig.FILE + " asks for the " + label + " instance type; the project's own ("
                    + project.run().instanceType() + ") wins");
            return queued;
        }
        if (store.typeRequested(d.id())) {
            log.log(Level.INFO, AppConfig.FILE + " asks for the " + label + " instance type; the deployment's request ("
                    + queued.label() + ") wins");
            return queued;
        }
        InstanceType type = InstanceType.byLabel(label).orElseThrow();
        var tier = store.tierOf(project.id());
        if (!type.allowedFor(tier)) {
            throw new StartFailedException(AppConfig.FILE + " [run] instance_type '" + label + "' is not available on the "
                    + tier.label() + " tier (it allows " + String.join(", ", InstanceType.labelsFor(tier)) + ")");
        }
        store.instanceType(d.id(), type.label());
        log.log(Level.INFO, "Instance type: " + type.label() + " (" + AppConfig.FILE + " [run] instance_type)");
        return type;
    }
}
