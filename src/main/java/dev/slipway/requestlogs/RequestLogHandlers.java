package dev.slipway.requestlogs;

import dev.slipway.api.Access;
import dev.slipway.api.ApiException;
import dev.slipway.api.Paging;
import dev.slipway.api.Requests;
import dev.slipway.deployments.Deployment;
import dev.slipway.deployments.DeploymentStore;
import dev.slipway.store.Page;
import io.javalin.http.Context;

import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code GET /v1/deployments/{id}/requests?status=&path=&before=&limit=}: the deployment's request log, newest first,
 * {@code status} a code ({@code 404}) or a class ({@code 5xx}), {@code path} a prefix of the path.
 */
public final class RequestLogHandlers {
    private static final int DEFAULT_LIMIT = 100;
    private static final int MAX_LIMIT = 1000;
    private static final Pattern STATUS = Pattern.compile("([1-5])(?:xx|XX)|([1-5][0-9][0-9])");

    private final RequestLogStore store;
    private final DeploymentStore deployments;

    public RequestLogHandlers(RequestLogStore store, DeploymentStore deployments) {
        this.store = store;
        this.deployments = deployments;
    }

    public record RequestPage(List<RequestLine> requests) {}

    public void list(Context ctx) {
        String id = ctx.pathParam("deployment_id");
        Deployment d = Access.owned(Requests.principal(ctx), deployments.find(id), Deployment::accountId, "Deployment", id);
        RequestLogStore.Filter filter = filter(ctx.queryParam("status"), ctx.queryParam("path"));
        long before = cursor(ctx.queryParam("before"));
        int limit = limit(ctx.queryParam("limit"));
        List<RequestLine> page = store.search(d.id(), filter, before, limit + 1);
        boolean more = page.size() > limit;
        if (more) page = page.subList(0, limit);
        String next = more ? "r" + page.getLast().seq() : null;
        ctx.json(Map.of("data", new RequestPage(page), "pagination", new Page.Pagination(more, next)));
    }

    /** A read's filter from its {@code status} and {@code path} parameters; a 400 naming a bad one. */
    public static RequestLogStore.Filter filter(String status, String path) {
        int from = 100, to = 599;
        if (status != null && !status.isBlank()) {
            Matcher m = STATUS.matcher(status.trim());
            if (!m.matches()) throw ApiException.invalidField("status", "must be a status code (404) or a class (5xx)");
            if (m.group(1) != null) {
                from = Integer.parseInt(m.group(1)) * 100;
                to = from + 99;
            } else {
                from = to = Integer.parseInt(m.group(2));
            }
        }
        String prefix = path == null ? "" : path;
        if (!prefix.isEmpty() && !prefix.startsWith("/")) throw ApiException.invalidField("path", "must start with /");
        if (prefix.length() > 1024) throw ApiException.invalidField("path", "must be at most 1024 characters");
        return new RequestLogStore.Filter(from, to, prefix);
    }

    static long cursor(String raw) {
        if (raw == null || raw.isEmpty()) return 0;
        try {
            if (raw.startsWith("r")) {
                long v = Long.parseLong(raw.substring(1));
                if (v > 0) return v;
            }
        } catch (NumberFormatException ignored) {
            // falls through to the error
        }
        throw ApiException.invalidField("before", "is not a request log cursor returned by this API");
    }

    static int limit(String raw) {
        return Paging.limit(raw, DEFAULT_LIMIT, MAX_LIMIT);
    }
}
