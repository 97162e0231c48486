package dev.slipway.client.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.client.context.Context;
import dev.slipway.client.context.Deadline;
import dev.slipway.client.context.TimedOut;
import dev.slipway.client.context.UsageException;

import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * The Slipway HTTP API over {@code java.net.http}: bearer key, JSON in and out, and the retries of
 * {@link Retry}. Every POST carries the {@code Idempotency-Key} its caller chose for the logical
 * operation, the same on every try, so a POST retried after a lost answer is replayed, not done twice.
 */
public final class Api implements AutoCloseable {
    static final String USER_AGENT = "slipway-cli/0.1.0";
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    private final ClientConfig config;
    private final Context ctx;
    private final Deadline deadline;
    private final HttpClient http;

    private final boolean owner;

    public Api(ClientConfig config, Context ctx, Deadline deadline) {
        this(config, ctx, deadline, HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).followRedirects(HttpClient.Redirect.NEVER).build(), true);
    }

    private Api(ClientConfig config, Context ctx, Deadline deadline, HttpClient http, boolean owner) {
        this.config = config;
        this.ctx = ctx;
        this.deadline = deadline;
        this.http = http;
        this.owner = owner;
    }

    /** The same client without the deadline: for the report after a run ended, which must not turn into a timeout. */
    public Api unbounded() {
        return new Api(config, ctx, Deadline.none(), http, false);
    }

    public Deadline deadline() {
        return deadline;
    }

    /** GET; the whole answer ({@code data}, and {@code pagination} for lists). */
    public JsonNode get(String path) {
        return get(path, Duration.ZERO);
    }

    /** GET that the server may hold for {@code hold} (a {@code ?wait=} long-poll). */
    public JsonNode get(String path, Duration hold) {
        return JsonTrees.parse(send("GET " + path, () -> request(path, REQUEST_TIMEOUT.plus(hold)).GET().build(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8)).body());
    }

    /** POST of a JSON body ({@code null}: no body). */
    public JsonNode post(String path, JsonNode body, String idempotencyKey) {
        return JsonTrees.parse(send("POST " + path, () -> {
            HttpRequest.Builder b = request(path, REQUEST_TIMEOUT).header("Idempotency-Key", idempotencyKey);
            if (body == null) return b.POST(HttpRequest.BodyPublishers.noBody()).build();
            return b.header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(JsonTrees.compact(body), StandardCharsets.UTF_8)).build();
        }, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8)).body());
    }

    /** POST of a file's raw bytes (an upload). */
    JsonNode postFile(String path, Path file, String contentType, String idempotencyKey) {
        return JsonTrees.parse(send("POST " + path, () -> {
            try {
                return request(path, Duration.ofMinutes(10)).header("Idempotency-Key", idempotencyKey)
                        .header("Content-Type", contentType).POST(HttpRequest.BodyPublishers.ofFile(file)).build();
            } catch (IOException e) {
                throw new UsageException("cannot read " + file + ": " + e.getMessage());
            }
        }, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8)).body());
    }

    /** An event stream ({@code Accept: text/event-stream}), resumed after {@code lastEventId} when given. */
    public InputStream stream(String path, String lastEventId) {
        return send("GET " + path, () -> {
            HttpRequest.Builder b = request(path, REQUEST_TIMEOUT).setHeader("Accept", "text/event-stream");
            if (lastEventId != null) b.header("Last-Event-ID", lastEventId);
            return b.GET().build();
        }, HttpResponse.BodyHandlers.ofInputStream()).body();
    }

    private HttpRequest.Builder request(String path, Duration timeout) {
        return HttpRequest.newBuilder(config.resolve(path)).timeout(timeout)
                .header("Authorization", "Bearer " + config.key()).header("User-Agent", USER_AGENT)
                .header("Accept", "application/json");
    }

    private <T> HttpResponse<T> send(String what, Supplier<HttpRequest> request, HttpResponse.BodyHandler<T> handler) {
        for (int attempt = 1; ; attempt++) {
            deadline.check("(" + what + ")");
            HttpResponse<T> response;
            try {
                response = http.send(request.get(), handler);
            } catch (IOException e) {
                if (attempt >= Retry.ATTEMPTS) {
                    throw ApiError.unreachable("cannot reach the API at " + config.base() + " (" + what + "): "
                            + describe(e) + "; gave up after " + attempt + " tries");
                }
                Duration pause = Retry.backoff(attempt);
                note(what + ": " + describe(e) + "; retrying in " + seconds(pause) + " (try " + (attempt + 1) + "/" + Retry.ATTEMPTS + ")");
                deadline.sleep(pause, "(" + what + ")");
                continue;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new TimedOut("interrupted (" + what + ")");
            }
            int status = response.statusCode();
            if (status < 400) return response;
            String body = bodyText(response);
            ApiError error = ApiError.of(status, body, response.headers().firstValue("X-Request-Id").orElse(null));
            boolean conflict = status == 409 && "idempotency_conflict".equals(error.code());
            if (!(Retry.retryable(status) || conflict) || attempt >= Retry.ATTEMPTS) throw error;
            Duration pause = status == 429 ? Retry.retryAfter(response.headers(), attempt) : Retry.backoff(attempt);
            note(what + ": " + (status == 429 ? "rate limited" : error.code() + " (HTTP " + status + ")")
                    + "; retrying in " + seconds(pause) + (status == 429 ? " (Retry-After)" : "")
                    + " (try " + (attempt + 1) + "/" + Retry.ATTEMPTS + ")");
            deadline.sleep(pause, "(" + what + ")");
        }
    }

    private static String bodyText(HttpResponse<?> response) {
        Object body = response.body();
        if (body instanceof String s) return s;
        if (body instanceof InputStream in) {
            try (in) {
                return new String(in.readNBytes(64 * 1024), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "";
            }
        }
        return "";
    }

    private static String describe(IOException e) {
        String m = e.getMessage();
        return e.getClass().getSimpleName() + (m == null || m.isBlank() ? "" : " " + m);
    }

    private static String seconds(Duration d) {
        return d.toMillis() < 10_000 ? String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0) : d.toSeconds() + " s";
    }

    private void note(String message) {
        ctx.err().println("slipway: " + message);
    }

    @Override
    public void close() {
        if (owner) http.shutdownNow(); // a log stream left open by a timeout must not hold the exit
    }
}
