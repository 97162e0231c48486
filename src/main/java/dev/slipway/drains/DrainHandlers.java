package dev.slipway.drains;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.api.Access;
import dev.slipway.api.ApiException;
import dev.slipway.api.AppUrls;
import dev.slipway.api.Body;
import dev.slipway.api.Envelope;
import dev.slipway.api.Requests;
import dev.slipway.core.Ids;
import dev.slipway.net.AddressGuard;
import dev.slipway.projects.Project;
import dev.slipway.projects.ProjectStore;
import io.javalin.http.Context;

import java.net.URI;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A project's log drains: {@code GET} and {@code POST /v1/projects/{id}/log-drains}, {@code DELETE
 * /v1/projects/{id}/log-drains/{drain_id}}.
 */
public final class DrainHandlers {
    static final int MAX_PER_PROJECT = 5;
    private static final int MAX_URL = 2000;
    private static final Set<String> FIELDS = Set.of("url", "sources");
    private static final Set<String> SCHEMES = Set.of("syslog", "syslog+tls", "https", "http");

    private final DrainStore store;
    private final ProjectStore projects;
    private final AddressGuard guard;
    private final AppUrls urls;
    private final Clock clock;
    private final Ids ids;

    public DrainHandlers(DrainStore store, ProjectStore projects, AddressGuard guard, AppUrls urls, Clock clock) {
        this.store = store;
        this.projects = projects;
        this.guard = guard;
        this.urls = urls;
        this.clock = clock;
        this.ids = new Ids(clock);
    }

    /**
     * A drain as reads show it: its URL with its query's values masked (a token there is a secret).
     *
     * @param failingSince since when its batches fail, null while they go through
     */
    public record View(String id, String projectId, String url, String kind, List<String> sources, long linesSent,
                       Instant failingSince, String lastError, Instant createdAt) {
        static View of(LogDrain d) {
            return new View(d.id(), d.projectId(), d.shownUrl(), d.kind(), List.copyOf(d.sources()), d.linesSent(), d.failingSince(),
                    d.lastError(), d.createdAt());
        }
    }

    public void list(Context ctx) {
        Project p = project(ctx);
        ctx.json(new Envelope<>(store.list(p.id()).stream().map(View::of).toList()));
    }

    public void create(Context ctx) {
        Project p = project(ctx);
        Body body = Requests.json(ctx, Requests.MAX_JSON_BODY);
        body.only(FIELDS);
        URI url = url(body);
        List<String> sources = sources(body);
        body.check();
        try {
            guard.check(url);
        } catch (AddressGuard.Refused refused) {
            throw new ApiException(400, "url_not_allowed", "Invalid url: " + refused.getMessage(),
                    Map.of("url", refused.getMessage()), Map.of());
        }
        if (store.count(p.id()) >= MAX_PER_PROJECT) {
            throw ApiException.invalidField("url", "a project has at most " + MAX_PER_PROJECT + " log drains: delete one first");
        }
        LogDrain d = store.create(ids.next("drn"), p.id(), p.accountId(), url, shown(url), sources, clock.instant());
        ctx.header("Location", urls.api("/v1/projects/" + p.id() + "/log-drains/" + d.id()));
        ctx.status(201).json(new Envelope<>(View.of(d)));
    }

    public void delete(Context ctx) {
        Project p = project(ctx);
        String id = ctx.pathParam("drain_id");
        LogDrain d = store.find(id).filter(x -> x.projectId().equals(p.id()))
                .orElseThrow(() -> ApiException.notFound("Log drain " + id + " not found"));
        store.delete(d.id());
        ctx.status(204);
    }

    private Project project(Context ctx) {
        String id = ctx.pathParam("project_id");
        return Access.owned(Requests.principal(ctx), projects.find(id), Project::accountId, "Project", id);
    }

    /** syslog://, syslog+tls://, https:// or http:// with a host, without credentials or a fragment. */
    static URI url(Body body) {
        URI uri = body.uri("url", true, MAX_URL);
        if (uri == null) return null;
        String scheme = uri.getScheme() == null ? "" : uri.getScheme();
        if (!SCHEMES.contains(scheme)) {
            body.problem("url", "must be a syslog://, syslog+tls://, https:// or http:// URL");
        } else if (uri.getHost() == null || uri.getHost().isEmpty()) {
            body.problem("url", "must name a host");
        } else if (uri.getRawUserInfo() != null) {
            body.problem("url", "must not carry credentials: put a token in the query, which reads show masked");
        } else if (uri.getRawFragment() != null) {
            body.problem("url", "must not have a fragment");
        } else if (scheme.startsWith("syslog") && (uri.getRawQuery() != null || !(uri.getRawPath() == null || uri.getRawPath().isEmpty()))) {
            body.problem("url", "a syslog URL is a host and a port only");
        } else {
            return uri;
        }
        return null;
    }

    /** A non-empty array of logs and requests; both when absent. */
    static List<String> sources(Body body) {
        JsonNode v = body.node().get("sources");
        if (v == null || v.isNull()) return List.of(LogDrain.LOGS, LogDrain.REQUESTS);
        List<String> out = new ArrayList<>();
        if (v.isArray()) for (JsonNode s : v) if (s.isTextual() && LogDrain.SOURCES.contains(s.textValue()) && !out.contains(s.textValue())) out.add(s.textValue());
        if (!v.isArray() || v.isEmpty() || out.size() != v.size()) {
            body.problem("sources", "must be a non-empty array of logs and requests, each once");
            return null;
        }
        return out;
    }

    /** The URL with each query value as {@code ***}. */
    static String shown(URI url) {
        String s = url.toString();
        int q = s.indexOf('?');
        if (q < 0) return s;
        StringBuilder out = new StringBuilder(s.substring(0, q + 1));
        String[] pairs = s.substring(q + 1).split("&", -1);
        for (int i = 0; i < pairs.length; i++) {
            int eq = pairs[i].indexOf('=');
            out.append(i == 0 ? "" : "&").append(eq < 0 ? pairs[i] : pairs[i].substring(0, eq + 1) + "***");
        }
        return out.toString();
    }
}
