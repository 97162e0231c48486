package dev.slipway.statuses;

import dev.slipway.core.DuePoller;
import dev.slipway.logs.Level;
import dev.slipway.logs.LogStore;
import dev.slipway.projects.ProjectGitStore;
import dev.slipway.source.GitCredentials;
import dev.slipway.source.GitHosts;
import dev.slipway.webhooks.Dispatcher;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Reports the queued commit statuses to the git hosts' APIs, each on its own virtual thread, with the project's
 * token as it is at the time of sending. A 2xx is done; a 408, a 429, a 5xx or no answer is tried again on the
 * webhook retry schedule; any other answer (the token lacks the scope, the repository is gone) is given up at
 * once. A status given up writes one line in its deployment's log, so the user sees why their host shows nothing.
 */
public final class StatusSender implements AutoCloseable {
    static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final Duration LEASE = Duration.ofSeconds(60);
    private static final int IN_FLIGHT = 32;
    private static final long POLL_MILLIS = 250;
    private static final long IDLE_MILLIS = 5_000;

    private final StatusStore store;
    private final ProjectGitStore git;
    private final GitHosts hosts;
    private final LogStore logs;
    private final List<Duration> retries;
    private final Clock clock;
    private final String owner;
    private final HttpClient http;
    private final DuePoller<StatusStore.Pending> poller;

    public StatusSender(StatusStore store, ProjectGitStore git, GitHosts hosts, LogStore logs, List<Duration> retries,
                        Clock clock, String nodeId) {
        this.store = store;
        this.git = git;
        this.hosts = hosts;
        this.logs = logs;
        this.retries = List.copyOf(retries);
        this.clock = clock;
        this.owner = (nodeId.length() > 60 ? nodeId.substring(0, 60) : nodeId) + "/" + UUID.randomUUID().toString().substring(0, 8);
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(TIMEOUT)
                .followRedirects(HttpClient.Redirect.NEVER).build();
        this.poller = new DuePoller<>("commit-status", new DuePoller.Work<>() {
            @Override public List<StatusStore.Pending> due(int limit) { return store.due(limit); }
            @Override public String key(StatusStore.Pending p) { return p.deploymentId(); }
            @Override public boolean claim(StatusStore.Pending p) { return store.claim(p, owner, LEASE); }
            @Override public Optional<Instant> nextDue() { return store.nextDue(); }
            @Override public void run(StatusStore.Pending p) { send(p); }
        }, IN_FLIGHT, POLL_MILLIS, IDLE_MILLIS, clock);
    }

    public void start() {
        poller.start();
    }

    /** A status was queued: look now rather than at the next poll. */
    public void wake() {
        poller.wake();
    }

    private void send(StatusStore.Pending p) {
        Outcome o = attempt(p);
        if (o == null) return; // stopping: the lease runs out and the next holder sends it
        Instant retryAt = o.retry() && p.attempts() < retries.size()
                ? clock.instant().plus(Dispatcher.jitter(retries.get(p.attempts()))) : null;
        boolean current = store.attempted(p, owner, o.error(), retryAt);
        if (current && o.error() != null && retryAt == null) {
            logs.append(p.deploymentId(), Level.WARNING, "The commit status (" + p.status().state().label()
                    + ") was not reported to " + p.source() + ": " + o.error());
        }
    }

    /** @param error null when it was reported; {@code retry}: worth another attempt */
    private record Outcome(String error, boolean retry) {}

    private Outcome attempt(StatusStore.Pending p) {
        StatusApi api = StatusApi.of(p.source());
        GitCredentials.Token token = git.credentials(p.projectId()).orElse(null) instanceof GitCredentials.Token t ? t : null;
        if (api == null || token == null) return new Outcome("the project has no HTTPS token any more", false);
        StatusApi.Call call = api.call(hosts.apiBase(p.source()), p.repo(), p.commitSha(), p.status(), token);
        HttpRequest.Builder request = HttpRequest.newBuilder(call.uri()).timeout(TIMEOUT)
                .header("Content-Type", "application/json").header("User-Agent", "Slipway-Statuses/1")
                .POST(HttpRequest.BodyPublishers.ofString(call.body()));
        call.headers().forEach(request::header);
        String where = call.uri().getHost() + (call.uri().getPort() < 0 ? "" : ":" + call.uri().getPort());
        try {
            int status = http.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
            if (status / 100 == 2) return new Outcome(null, false);
            boolean retry = status == 408 || status == 429 || status >= 500;
            return new Outcome(where + " answered HTTP " + status + hint(status), retry);
        } catch (HttpTimeoutException late) {
            return new Outcome(where + " did not answer within " + TIMEOUT.toSeconds() + " s", true);
        } catch (IOException io) {
            return new Outcome("cannot reach " + where + ": " + (io.getMessage() == null ? io.getClass().getSimpleName() : io.getMessage()), true);
        } catch (InterruptedException stopping) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private static String hint(int status) {
        return switch (status) {
            case 401, 403, 404 -> " (does the project's token have the scope to set commit statuses? GitHub: repo:status or "
                    + "\"Commit statuses: write\"; GitLab: api; Bitbucket: repository:write; Gitea: write:repository)";
            default -> "";
        };
    }

    @Override
    public void close() {
        poller.close();
        http.close();
    }
}
