package dev.slipway.dashboard;

import dev.slipway.appconfig.AppConfig;
import dev.slipway.appconfig.RepoConfig;
import dev.slipway.cron.CronRun;
import dev.slipway.cron.CronRunStore;
import dev.slipway.dashboard.Html.Safe;
import dev.slipway.deployments.DeploymentStore;
import dev.slipway.deployments.ReplicaScaling;
import dev.slipway.projects.Project;
import dev.slipway.store.PageRequest;

import java.util.List;

/**
 * On a project's page, what its production build's {@code slipway.toml} runs: its instances of web, its health check, its
 * volumes, its cron jobs and their latest runs. Only the instances when it has no such file, nothing for one.
 */
public final class ServicePanel {
    private static final int RUNS_SHOWN = 10;

    private final DeploymentStore deployments;
    private final CronRunStore cronRuns;
    private final UsageGraphs graphs;

    public ServicePanel(DeploymentStore deployments, CronRunStore cronRuns, UsageGraphs graphs) {
        this.deployments = deployments;
        this.cronRuns = cronRuns;
        this.graphs = graphs;
    }

    /** Its last hour's charts, then its service. */
    Safe of(Project p) {
        return Html.join(graphs.of(p), service(p));
    }

    private Safe service(Project p) {
        if (p.productionDeploymentId() == null) return Html.EMPTY;
        AppConfig config = deployments.find(p.productionDeploymentId())
                .flatMap(d -> d.artifactId() == null ? java.util.Optional.<String>empty() : deployments.config(d.artifactId()))
                .map(json -> RepoConfig.ofJson(java.util.Optional.of(json)).config()).orElse(null);
        RepoConfig repo = config == null ? RepoConfig.NONE : new RepoConfig(config);
        int replicas = ReplicaScaling.replicas(p, repo);
        if (config == null && replicas == 1) return Html.EMPTY;
        Safe instances = Html.fmt("<dt>Instances of web</dt><dd>%s%s</dd>", Integer.toString(replicas),
                p.run().replicas() != null ? " (the project's replicas)" : "");
        if (config == null) return Html.fmt("<h2>Service</h2><dl class=\"fields\">%s</dl>", instances);
        Safe health = config.health() == null ? Html.fmt("<dt>Health check</dt><dd>any answer below 500 on <code>/</code></dd>")
                : Html.fmt("<dt>Health check</dt><dd><code>GET %s</code> answers %s, every %s s</dd>", repo.health().path(),
                repo.health().range(), Long.toString(repo.health().interval().toSeconds()));
        Safe volumes = config.volumes() == null ? Html.EMPTY : Html.fmt("<dt>Volumes</dt><dd>%s</dd>",
                Html.each(config.volumes(), v -> Html.fmt("<code>%s</code> at <code>%s</code> (%s MB)%s ", v.name(), v.path(),
                        Integer.toString(v.sizeMb()), v.shared() ? ", shared" : "")));
        Safe jobs = config.cron() == null ? Html.EMPTY : Html.fmt("<dt>Cron jobs</dt><dd>%s</dd>",
                Html.each(config.cron(), c -> Html.fmt("<code>%s</code> <code>%s</code>%s ", c.name(), c.schedule(),
                        c.timezone() == null ? " UTC" : " " + c.timezone())));
        Safe processes = config.processes() == null ? Html.EMPTY : Html.fmt("<dt>Processes</dt><dd>%s</dd>",
                Html.each(List.copyOf(config.processes().entrySet()), e -> Html.fmt("<code>%s</code>: <code>%s</code> ", e.getKey(), e.getValue())));
        Safe type = config.run() == null || config.run().instanceType() == null ? Html.EMPTY
                : Html.fmt("<dt>Instance type</dt><dd>%s (unless the project or a deployment names one)</dd>", config.run().instanceType());
        Safe site = config.headers() == null && config.redirects() == null ? Html.EMPTY
                : Html.fmt("<dt>Static site rules</dt><dd>%s header rule(s), %s redirect(s)</dd>",
                Integer.toString(config.headers() == null ? 0 : config.headers().size()),
                Integer.toString(config.redirects() == null ? 0 : config.redirects().size()));
        List<CronRun> runs = config.cron() == null ? List.of() : cronRuns.page(p.id(), new PageRequest(RUNS_SHOWN, null)).data();
        Safe table = runs.isEmpty() ? Html.EMPTY : Html.fmt("""
                <div class="table-wrap">
                <table>
                  <caption>Latest cron runs</caption>
                  <thead><tr><th scope="col">Job</th><th scope="col">Status</th><th scope="col">Exit code</th>
                  <th scope="col">Scheduled for</th><th scope="col" class="wide">Why</th></tr></thead>
                  <tbody>%s</tbody>
                </table>
                </div>""", Html.each(runs, r -> Html.fmt("<tr data-cron-status=\"%s\"><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td class=\"wide\">%s</td></tr>",
                r.status().label(), r.name(), r.status().label(), r.exitCode() == null ? "—" : r.exitCode().toString(),
                Format.time(r.scheduledFor()), Format.orDash(r.reason()))));
        return Html.fmt("""
                <h2>slipway.toml</h2>
                <dl class="fields">%s%s%s%s%s%s%s</dl>
                %s""", instances, type, processes, health, volumes, jobs, site, table);
    }
}
