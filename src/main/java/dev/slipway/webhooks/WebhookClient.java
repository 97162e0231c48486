package dev.slipway.webhooks;

import dev.slipway.net.AddressGuard;
import org.eclipse.jetty.client.BytesRequestContent;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.InputStreamResponseListener;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * POSTs webhooks. Every new connection goes to the addresses the {@link AddressGuard} checked
 * ({@link PinnedResolver}); redirects are not followed; the answer's body is never read, so a receiver
 * cannot hold a sender past its status line. Made on the first delivery: starting it loads the TLS stack.
 */
public final class WebhookClient implements AutoCloseable {
    private final AddressGuard guard;
    private final Duration timeout;
    private HttpClient http;
    private boolean closed;

    public WebhookClient(AddressGuard guard, Duration timeout) {
        this.guard = guard;
        this.timeout = timeout;
    }

    /** The status of the answer to a POST of {@code json} with {@code headers}. */
    int post(URI uri, Map<String, String> headers, String json)
            throws AddressGuard.Refused, TimeoutException, IOException, InterruptedException {
        return post(uri, headers, "application/json", json.getBytes(StandardCharsets.UTF_8));
    }

    /** The status of the answer to a POST of {@code body} with {@code headers}. */
    public int post(URI uri, Map<String, String> headers, String contentType, byte[] body)
            throws AddressGuard.Refused, TimeoutException, IOException, InterruptedException {
        String scheme = uri.getScheme();
        if (!"http".equals(scheme) && !"https".equals(scheme)) throw new IllegalArgumentException("not an http(s) URL");
        Request request = client().newRequest(uri).method(HttpMethod.POST).timeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .headers(h -> headers.forEach(h::put))
                .body(new BytesRequestContent(contentType, body));
        InputStreamResponseListener listener = new InputStreamResponseListener();
        request.send(listener);
        try {
            return listener.get(timeout.toMillis(), TimeUnit.MILLISECONDS).getStatus();
        } catch (ExecutionException failed) {
            Throwable cause = failed.getCause();
            switch (cause) {
                case AddressGuard.Refused refused -> throw refused;
                case TimeoutException late -> throw late;
                case IOException io -> throw io;
                default -> throw new IOException(cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage(), cause);
            }
        } catch (TimeoutException late) {
            request.abort(late);
            throw late;
        } finally {
            listener.getInputStream().close(); // ends the exchange without reading the body
        }
    }

    private synchronized HttpClient client() throws IOException {
        if (closed) throw new IOException("the server is stopping");
        if (http == null) {
            HttpClient made = new HttpClient();
            QueuedThreadPool threads = new QueuedThreadPool();
            threads.setName("webhook-client");
            made.setExecutor(threads);
            made.setSocketAddressResolver(new PinnedResolver(guard));
            made.setFollowRedirects(false);
            made.setConnectTimeout(timeout.toMillis());
            made.setUserAgentField(new HttpField(HttpHeader.USER_AGENT, "Slipway-Webhooks/1"));
            try {
                made.start();
            } catch (Exception e) {
                throw new IOException("cannot start the webhook client: " + e.getMessage(), e);
            }
            http = made;
        }
        return http;
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (http == null) return;
        try {
            http.stop();
        } catch (Exception ignored) {
            // stopping: connections in flight are abandoned
        }
    }
}
