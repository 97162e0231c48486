package dev.slipway.webhooks;

import dev.slipway.api.AppUrls;
import dev.slipway.core.Ids;
import dev.slipway.core.Json;
import dev.slipway.deployments.Deployment;
import dev.slipway.images.ImageStore;
import dev.slipway.deployments.DeploymentStore;
import dev.slipway.deployments.DeploymentView;
import dev.slipway.logs.LogEntry;
import dev.slipway.logs.LogStore;
import dev.slipway.migrations.Migration;
import dev.slipway.migrations.MigrationStatus;
import dev.slipway.migrations.MigrationStore;
import dev.slipway.migrations.MigrationView;
import dev.slipway.projects.Project;
import dev.slipway.projects.ProjectStore;
import dev.slipway.projects.ProjectView;
import org.jdbi.v3.core.Handle;

import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes webhook events into the outbox inside the transaction of the state change that causes
 * them: a change that commits has its deliveries, one that rolls back has none. The payload is
 * {@code {type, timestamp, data}} with {@code data} the resource as its GET returns it at that
 * moment; a failure also carries {@code logs}, the last lines of the run's log.
 */
public final class Outbox implements DeploymentStore.Listener, MigrationStore.Listener, ProjectStore.DomainListener {
    static final int FAILURE_LOG_LINES = 20;

    private final EndpointStore endpoints;
    private final DeliveryStore deliveries;
    private final LogStore logs;
    private final Clock clock;
    private final Ids ids;
    private final AppUrls urls;
    private final Runnable wake;

    /** @param wake what to run once a transaction that queued deliveries commits (the dispatcher's wake-up) */
    public Outbox(EndpointStore endpoints, DeliveryStore deliveries, LogStore logs, Clock clock, AppUrls urls, Runnable wake) {
        this.endpoints = endpoints;
        this.deliveries = deliveries;
        this.logs = logs;
        this.clock = clock;
        this.ids = new Ids(clock);
        this.urls = urls;
        this.wake = wake;
    }

    @Override
    public void changed(Handle h, Deployment d) {
        String type = "deployment." + d.status().label();
        List<Endpoint> targets = targets(h, d.accountId(), type);
        if (targets.isEmpty()) return;
        String[] project = project(h, d.projectId());
        boolean production = d.id().equals(project[1]);
        Object data = DeploymentView.Detail.of(d, project[0], production, urls, image(h, d.artifactId()), null);
        enqueue(h, targets, type, data, d.id());
    }

    @Override
    public void changed(Handle h, Migration m) {
        if (m.status() == MigrationStatus.PENDING) return; // waiting for a build slot is no event
        String type = "migration." + m.status().label();
        List<Endpoint> targets = targets(h, m.accountId(), type);
        if (targets.isEmpty()) return;
        Object data = MigrationView.Detail.of(m, project(h, m.projectId())[0], urls);
        enqueue(h, targets, type, data, m.id());
    }

    /**
     * An event of another feature (a certificate's), queued in the caller's transaction for the account's
     * endpoints that subscribed to it; {@code data} is the resource as the API shows it.
     */
    public void event(Handle h, String accountId, String type, Object data) {
        List<Endpoint> targets = targets(h, accountId, type);
        if (!targets.isEmpty()) enqueue(h, targets, type, data, null);
    }

    /** {@code domain.verified}: the project as its GET shows it, with its domain now verified. */
    @Override
    public void verified(Handle h, Project p) {
        String type = "domain.verified";
        List<Endpoint> targets = targets(h, p.accountId(), type);
        if (targets.isEmpty()) return;
        enqueue(h, targets, type, ProjectView.of(p, urls), p.id());
    }

    /** The payload of an event; {@code logOwner} is the run whose last log lines a failure carries. */
    String payload(Handle h, String type, Instant at, Object data, String logOwner) {
        Map<String, Object> body = envelope(type, at, data);
        if (EventTypes.isFailure(type) && logOwner != null) {
            List<LogEntry> last = logs.last(h, logOwner, FAILURE_LOG_LINES);
            body.put("logs", last);
        }
        return Json.write(body);
    }

    /** Every event's body: {@code {"type", "timestamp", "data"}} (a failure adds its log's last lines). */
    static Map<String, Object> envelope(String type, Instant at, Object data) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", type);
        body.put("timestamp", at);
        body.put("data", data);
        return body;
    }

    private void enqueue(Handle h, List<Endpoint> targets, String type, Object data, String logOwner) {
        String payload = payload(h, type, clock.instant(), data, logOwner);
        String messageId = ids.next("msg");
        for (Endpoint e : targets) deliveries.enqueue(h, e.id(), messageId, type, payload);
        Runnable w = wake;
        if (h.isInTransaction()) h.afterCommit(w);
        else w.run();
    }

    private List<Endpoint> targets(Handle h, String accountId, String type) {
        return endpoints.enabled(h, accountId).stream().filter(e -> EventTypes.matches(e.events(), type)).toList();
    }

    /** The build's OCI image, as {@code GET /v1/deployments/{id}} shows it: null without a build or an image. */
    private static String image(Handle h, String artifactId) {
        return artifactId == null ? null : ImageStore.find(h, artifactId).orElse(null);
    }

    /** The project's name and production deployment id, as the caller's transaction sees them. */
    private static String[] project(Handle h, String projectId) {
        return h.createQuery("SELECT name, production_deployment_id FROM projects WHERE id = :p").bind("p", projectId)
                .map((rs, ctx) -> new String[]{rs.getString(1), rs.getString(2)}).one();
    }
}
