package dev.slipway.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.core.Json;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** A server-sent-events stream read as it arrives: each event with the time it came. */
final class Sse implements AutoCloseable {
    record Event(String id, String name, String data, long arrivedNanos) {
        JsonNode json() {
            try {
                return Json.MAPPER.readTree(data);
            } catch (Exception e) {
                throw new AssertionError("event data is not JSON: " + data, e);
            }
        }
    }

    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    final int status;
    final Map<String, List<String>> headers;
    private final BlockingQueue<Event> queue = new LinkedBlockingQueue<>();
    private final List<Event> all = new CopyOnWriteArrayList<>();
    private final Stream<String> lines;
    private final Thread reader;
    private volatile boolean closedByServer;

    private Sse(HttpResponse<Stream<String>> response) {
        this.status = response.statusCode();
        this.headers = response.headers().map();
        this.lines = response.body();
        this.reader = Thread.ofVirtual().start(this::read);
    }

    /** GETs {@code url} with {@code Accept: text/event-stream} (and {@code Last-Event-ID} when given). */
    static Sse open(String url, String key, String lastEventId) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).header("Authorization", "Bearer " + key)
                .header("Accept", "text/event-stream").GET();
        if (lastEventId != null) b.header("Last-Event-ID", lastEventId);
        try {
            return new Sse(CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofLines()));
        } catch (Exception e) {
            throw new AssertionError("cannot open the event stream " + url + ": " + e, e);
        }
    }

    private void read() {
        String id = null, name = null;
        StringBuilder data = new StringBuilder();
        try {
            for (var it = lines.iterator(); it.hasNext(); ) {
                String line = it.next();
                if (line.isEmpty()) {
                    if (name != null || !data.isEmpty()) {
                        Event e = new Event(id, name == null ? "message" : name, data.toString(), System.nanoTime());
                        all.add(e);
                        queue.add(e);
                    }
                    id = null;
                    name = null;
                    data.setLength(0);
                } else if (line.startsWith("id:")) {
                    id = line.substring(3).strip();
                } else if (line.startsWith("event:")) {
                    name = line.substring(6).strip();
                } else if (line.startsWith("data:")) {
                    if (!data.isEmpty()) data.append('\n');
                    data.append(line.substring(5).strip());
                }
            }
        } catch (RuntimeException ignored) {
            // closed by close()
        }
        closedByServer = true;
    }

    /** The next event, or an AssertionError after {@code timeout}. */
    Event next(Duration timeout) {
        try {
            Event e = queue.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (e == null) throw new AssertionError("no event within " + timeout + "; received so far: " + all.size());
            return e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Reads until {@code event: end}; returns the log events before it. */
    List<Event> untilEnd(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<Event> logs = new ArrayList<>();
        while (true) {
            Event e = next(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
            if (e.name().equals("end")) return logs;
            if (!e.name().equals("log")) throw new AssertionError("unexpected event " + e);
            logs.add(e);
        }
    }

    /** True once the server closed the stream (after the reader saw its last line). */
    boolean closedByServer(Duration timeout) {
        try {
            reader.join(timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return closedByServer;
    }

    @Override
    public void close() {
        lines.close();
    }
}
