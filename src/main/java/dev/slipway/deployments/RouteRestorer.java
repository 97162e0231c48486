package dev.slipway.deployments;

import dev.slipway.appconfig.RepoConfig;
import dev.slipway.build.ArtifactStore;
import dev.slipway.projects.Project;
import dev.slipway.projects.PreviewAddress;
import dev.slipway.projects.ProjectStore;
import dev.slipway.router.RouteTable;
import dev.slipway.router.Target;
import dev.slipway.runtime.AppRuntime;

import java.util.Optional;

/**
 * After a server start (and the runtime's recovery), rebuilds the in-memory route table from the
 * store: every live deployment at its own address, every project's production, custom domains.
 */
public final class RouteRestorer {
    private final DeploymentStore deployments;
    private final ProjectStore projects;
    private final ArtifactStore artifacts;
    private final AppRuntime runtime;
    private final RouteTable routes;

    public RouteRestorer(DeploymentStore deployments, ProjectStore projects, ArtifactStore artifacts, AppRuntime runtime,
                         RouteTable routes) {
        this.deployments = deployments;
        this.projects = projects;
        this.artifacts = artifacts;
        this.runtime = runtime;
        this.routes = routes;
    }

    public void restore() {
        for (Project project : projects.withProduction()) {
            deployments.find(project.productionDeploymentId()).ifPresent(d -> target(d).ifPresent(t -> {
                // the runtime's production address when it has one (a Kubernetes Service that follows promotions)
                routes.setProduction(project.name(), !(t instanceof Target.StaticSite)
                        ? runtime.productionAddresses().flatMap(a -> a.production(project.id()))
                                .<Target>map(i -> Target.app(i.host(), i.ports())).orElse(t)
                        : t);
                routes.setDeployment(project.name(), d.shortId(), t);
                if (project.servedDomain() != null) routes.setDomain(project.servedDomain(), project.name());
            }));
        }
        deployments.jdbi().useHandle(h -> h.createQuery(
                        "SELECT d.*, p.name AS project_name FROM deployments d JOIN projects p ON p.id = d.project_id WHERE d.status = :live"
                                + " ORDER BY d.created_at, d.id")
                .bind("live", DeploymentStatus.LIVE.label())
                .map((rs, ctx) -> new Object[]{DeploymentStore.MAPPER.map(rs, ctx), rs.getString("project_name")})
                .forEach(row -> {
                    Deployment d = (Deployment) row[0];
                    String name = (String) row[1];
                    target(d).ifPresent(t -> {
                        routes.setDeployment(name, d.shortId(), t);
                        // the newest live preview of a branch, set last, answers at the branch's address
                        if (d.preview() && d.branch() != null && projects.previewLabelFree(PreviewAddress.label(name, d.branch()))) {
                            routes.setDeployment(name, PreviewAddress.suffix(name, d.branch()), t);
                        }
                    });
                }));
    }

    private Optional<Target> target(Deployment d) {
        if (d.artifactId() == null) return Optional.empty();
        var artifact = artifacts.find(d.artifactId());
        if (artifact.isPresent() && artifact.get().isStatic()) {
            return Optional.of(RepoConfig.ofJson(artifacts.config(artifact.get().id())).site(artifact.get()));
        }
        return runtime.get(d.id()).or(() -> d.rollbackOf() == null ? Optional.empty() : runtime.get(d.rollbackOf()))
                .map(i -> Target.app(i.host(), i.ports()));
    }
}
