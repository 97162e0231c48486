package dev.slipway.tls;

import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * In front of the router: answers the ACME CA's HTTP-01 requests from the store (any server sharing it can; the edge
 * process asks its server),
 * redirects plain HTTP with 308 to HTTPS for hosts that have a certificate, and adds HSTS to the HTTPS answers
 * of projects that opted in. Everything else goes to the router untouched.
 */
final class EdgeHandler extends Handler.Wrapper {
    static final String CHALLENGE_PREFIX = "/.well-known/acme-challenge/";
    static final String HSTS_VALUE = "max-age=31536000";
    /** RFC 8555 §8.3: base64url characters. */
    private static final Pattern TOKEN = Pattern.compile("^[A-Za-z0-9_-]{1,200}$");

    private final ChallengeAnswers answers;
    private final Certificates certificates;
    private final Predicate<String> hsts;
    private final int httpsPort;

    EdgeHandler(Handler router, ChallengeAnswers answers, Certificates certificates, Predicate<String> hsts, int httpsPort) {
        super(router);
        this.answers = answers;
        this.certificates = certificates;
        this.hsts = hsts;
        this.httpsPort = httpsPort;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        String host = host(request.getHeaders().get(HttpHeader.HOST));
        String path = request.getHttpURI().getPath();
        if (path != null && path.startsWith(CHALLENGE_PREFIX)) {
            // the router runs on the selector thread (non-blocking); the store's answer is a query
            String token = path.substring(CHALLENGE_PREFIX.length());
            request.getComponents().getExecutor().execute(() -> {
                try {
                    answerChallenge(token, host, response, callback);
                } catch (Throwable t) {
                    callback.failed(t);
                }
            });
            return true;
        }
        if (host != null && !request.isSecure() && certificates.covers(host)) {
            String query = request.getHttpURI().getQuery();
            String location = "https://" + host + (httpsPort == 443 ? "" : ":" + httpsPort) + (path == null || path.isEmpty() ? "/" : path)
                    + (query == null ? "" : "?" + query);
            response.setStatus(HttpStatus.PERMANENT_REDIRECT_308);
            response.getHeaders().put(HttpHeader.LOCATION, location);
            response.getHeaders().put(HttpHeader.CONTENT_LENGTH, 0);
            callback.succeeded();
            return true;
        }
        if (host != null && request.isSecure() && hsts.test(host)) {
            response.getHeaders().put(HttpHeader.STRICT_TRANSPORT_SECURITY, HSTS_VALUE);
        }
        return super.handle(request, response, callback);
    }

    /** Only the token issued for this very host is answered; anything else is a 404 that tells nothing. */
    private void answerChallenge(String token, String host, Response response, Callback callback) {
        Optional<String> content = host == null || !TOKEN.matcher(token).matches() ? Optional.empty() : answers.http01(token, host);
        response.setStatus(content.isPresent() ? HttpStatus.OK_200 : HttpStatus.NOT_FOUND_404);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        response.write(true, ByteBuffer.wrap(content.orElse("no such challenge\n").getBytes(StandardCharsets.UTF_8)), callback);
    }

    /** The Host header's name: lowercase, without port; null when absent or not a plain hostname. */
    static String host(String header) {
        if (header == null || header.isBlank()) return null;
        String h = header.strip().toLowerCase(Locale.ROOT);
        int colon = h.lastIndexOf(':');
        if (colon >= 0 && h.indexOf(']') < colon) h = h.substring(0, colon);
        if (h.endsWith(".")) h = h.substring(0, h.length() - 1);
        return HOSTNAME.matcher(h).matches() ? h : null;
    }

    private static final Pattern HOSTNAME = Pattern.compile("^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$");
}
