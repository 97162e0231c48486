package dev.slipway.webhooks;

import dev.slipway.core.DuePoller;
import dev.slipway.core.Ids;
import dev.slipway.core.Json;
import dev.slipway.mail.Mailer;
import dev.slipway.net.AddressGuard;
import dev.slipway.secrets.SecretBox;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Sends the outbox. A poller finds endpoints with due deliveries and takes their leases; each leased
 * endpoint gets its own virtual thread that sends its due deliveries one at a time, oldest first.
 * So one endpoint has at most one request in flight (on all servers), a slow endpoint holds only its
 * own thread, and at most {@link #MAX_ENDPOINTS_IN_FLIGHT} endpoints are served at once per server.
 * Nothing here runs on a request thread: the API only writes outbox rows.
 */
public final class Dispatcher implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);
    public static final Duration TIMEOUT = Duration.ofSeconds(10);
    public static final Duration DISABLE_AFTER = Duration.ofDays(5);
    static final Duration LEASE = Duration.ofSeconds(60); // well over one attempt (10 s)
    private static final Duration EXTEND_AFTER = Duration.ofSeconds(15); // so a lease never has less than 45 s left
    static final int MAX_ENDPOINTS_IN_FLIGHT = 64;
    private static final int PER_LEASE = 50;
    /** The shortest pause between two looks for due deliveries (a due one may be held by another server). */
    private static final long POLL_MILLIS = 250;
    /**
     * The longest: a delivery queued by this server wakes the poller at once, and one queued by another
     * server sharing the store is that server's to send; this only bounds how late a delivery left by
     * a server that died (or whose endpoint lease ran out) is picked up.
     */
    static final long IDLE_MILLIS = 5_000;

    private final EndpointStore endpoints;
    private final DeliveryStore deliveries;
    private final SecretBox secrets;
    private final List<Duration> retries;
    private final Clock clock;
    private final String node;
    private final String owner;
    private final WebhookClient client;
    /** Sends the mail of {@code email} endpoints; null when the server has no SMTP server. */
    private final Mailer mailer;
    private final DuePoller<String> poller;

    public Dispatcher(EndpointStore endpoints, DeliveryStore deliveries, SecretBox secrets, AddressGuard guard,
                      List<Duration> retries, Clock clock, String nodeId, Mailer mailer) {
        this.mailer = mailer;
        this.endpoints = endpoints;
        this.deliveries = deliveries;
        this.secrets = secrets;
        this.client = new WebhookClient(guard, TIMEOUT);
        this.retries = List.copyOf(retries);
        this.clock = clock;
        this.node = nodeId.length() > 60 ? nodeId.substring(0, 60) : nodeId;
        this.owner = node + "/" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        this.poller = new DuePoller<>("webhook", new DuePoller.Work<>() {
            @Override public List<String> due(int limit) { return endpoints.due(limit); }
            @Override public String key(String endpointId) { return endpointId; }
            @Override public boolean claim(String endpointId) { return endpoints.claim(endpointId, owner, LEASE); }
            @Override public Optional<Instant> nextDue() { return endpoints.nextDue(); }
            @Override public void run(String endpointId) { drain(endpointId); }
        }, MAX_ENDPOINTS_IN_FLIGHT, POLL_MILLIS, IDLE_MILLIS, clock);
    }

    /** Takes back at once the endpoints an earlier run of this node held (it was killed), then starts sending. */
    public synchronized void start() {
        if (!poller.running()) return;
        try {
            int released = endpoints.releaseLeasesOfNode(node, owner);
            if (released > 0) LOG.info("{} webhook endpoint(s) held by the previous run of this server resume now", released);
        } catch (RuntimeException e) {
            LOG.warn("releasing the webhook leases of the previous run failed (they resume when they expire): {}", e.toString());
        }
        poller.start();
    }

    /** A delivery was queued: look now rather than at the next poll. */
    public void wake() {
        poller.wake();
    }

    /** Sends the endpoint's due deliveries one at a time, oldest first, while it holds the endpoint's lease. */
    private void drain(String endpointId) {
        try {
            long extended = System.nanoTime();
            for (int i = 0; i < PER_LEASE && poller.running(); i++) {
                Optional<Delivery> next = deliveries.nextDue(endpointId);
                if (next.isEmpty()) break;
                Endpoint e = endpoints.find(endpointId).orElse(null); // each time: a change or rotation applies at once
                if (e == null || !e.enabled()) break;
                if (!attempt(e, next.get())) break;
                if (System.nanoTime() - extended > EXTEND_AFTER.toNanos()) {
                    if (!endpoints.extend(endpointId, owner, LEASE)) break;
                    extended = System.nanoTime();
                }
            }
        } finally {
            try {
                endpoints.release(endpointId, owner);
            } catch (RuntimeException ex) {
                LOG.warn("releasing webhook endpoint {} failed (its lease expires): {}", endpointId, ex.toString());
            }
        }
    }

    /** One attempt, recorded; false when the server is stopping (the attempt is left to be made again). */
    private boolean attempt(Endpoint e, Delivery d) {
        Instant now = clock.instant();
        Integer status = null;
        String error;
        try {
            if (ChatFormat.EMAIL.equals(e.format())) {
                error = mail(e, d.payload());
            } else {
                String body = ChatFormat.body(e.format(), d.payload());
                status = client.post(URI.create(e.url()), signed(e, d.messageId(), now, body), body);
                error = status / 100 == 2 ? null : "the endpoint answered HTTP " + status;
            }
        } catch (AddressGuard.Refused refused) {
            error = "not sent: " + refused.getMessage();
        } catch (TimeoutException timeout) {
            error = "no answer within " + TIMEOUT.toSeconds() + " s";
        } catch (IOException io) {
            error = "cannot reach the endpoint: " + (io.getMessage() == null ? io.getClass().getSimpleName() : io.getMessage());
        } catch (IllegalArgumentException bad) {
            error = "not sent: " + bad.getMessage();
        } catch (InterruptedException stopping) {
            Thread.currentThread().interrupt();
            return false;
        }
        record(e, d, status, error);
        return true;
    }

    /** Whether e-mail endpoints can be sent to: the server has an SMTP server. */
    public boolean mails() {
        return mailer != null;
    }

    /** Mails the event to the endpoint's address: null when the SMTP server took it, else why not. */
    private String mail(Endpoint e, String payload) throws InterruptedException {
        String to = WebhookInput.mailAddress(URI.create(e.url()));
        if (mailer == null || to == null) return "not sent: " + (mailer == null ? "the server has no SMTP server" : "not a mail address");
        try {
            mailer.send(to, ChatFormat.subject(payload), ChatFormat.mailText(payload)).get(TIMEOUT.toMillis() * 3, TimeUnit.MILLISECONDS);
            return null;
        } catch (java.util.concurrent.ExecutionException failed) {
            return "the SMTP server did not take it: " + failed.getCause().getMessage();
        } catch (TimeoutException late) {
            return "the SMTP server did not answer in time";
        }
    }

    /** Delivery attempts that an endpoint took, and that failed, since this server started (the metrics). */
    private final java.util.concurrent.atomic.LongAdder delivered = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder failed = new java.util.concurrent.atomic.LongAdder();

    public long delivered() {
        return delivered.sum();
    }

    public long failed() {
        return failed.sum();
    }

    private void record(Endpoint e, Delivery d, Integer status, String error) {
        (error == null ? delivered : failed).increment();
        if (error == null) {
            deliveries.succeeded(d.id(), status);
            if (e.failingSince() != null) endpoints.succeeded(e.id());
            return;
        }
        Instant now = clock.instant();
        if (status != null && status == 410) {
            endpoints.disable(e.id(), "the endpoint answered 410 Gone at " + now,
                    h -> deliveries.attemptFailed(h, d.id(), status, error + " (410 Gone: the endpoint is disabled)", null));
            return;
        }
        Instant failingSince = endpoints.failing(e.id());
        if (!Duration.between(failingSince, now).minus(DISABLE_AFTER).isNegative()) {
            endpoints.disable(e.id(), "every delivery failed since " + failingSince + " (5 days); last error: " + error,
                    h -> deliveries.attemptFailed(h, d.id(), status, error, null));
            return;
        }
        Instant retryAt = d.attempts() < retries.size() ? now.plus(jitter(retries.get(d.attempts()))) : null;
        deliveries.attemptFailed(d.id(), status, retryAt == null ? error + " (gave up after "
                + (d.attempts() + 1) + " attempts)" : error, retryAt);
    }

    /**
     * Sends an event at once to {@code targets}, one attempt each, recorded nowhere: the store, where deliveries are
     * kept, is away. True when at least one endpoint took it.
     */
    public boolean sendNow(List<Endpoint> targets, String type, Object data) {
        Instant now = clock.instant();
        String payload = Json.write(Outbox.envelope(type, now, data));
        String messageId = new Ids(clock).next("msg");
        boolean taken = false;
        for (Endpoint e : targets) {
            try {
                if (ChatFormat.EMAIL.equals(e.format())) {
                    String failed = mail(e, payload);
                    if (failed == null) taken = true;
                    else LOG.warn("the {} event could not be mailed for webhook {}: {}", type, e.id(), failed);
                    continue;
                }
                int status = client.post(URI.create(e.url()), signed(e, messageId, now, payload), payload);
                if (status / 100 == 2) taken = true;
                else LOG.warn("webhook {} answered HTTP {} to the {} event", e.id(), status, type);
            } catch (InterruptedException stopping) {
                Thread.currentThread().interrupt();
                return taken;
            } catch (Exception failed) {
                LOG.warn("the {} event could not be sent to webhook {}: {}", type, e.id(), failed.getMessage());
            }
        }
        return taken;
    }

    /** The Standard Webhooks headers of one attempt: its id, its time, and its signatures. */
    private Map<String, String> signed(Endpoint e, String messageId, Instant now, String payload) {
        long timestamp = now.getEpochSecond();
        return Map.of("webhook-id", messageId, "webhook-timestamp", Long.toString(timestamp),
                "webhook-signature", Signer.signatures(signingSecrets(e, now), messageId, timestamp, payload));
    }

    /** The delay ±20 %, so endpoints that failed together do not all retry in the same instant. */
    public static Duration jitter(Duration delay) {
        double factor = 0.8 + 0.4 * ThreadLocalRandom.current().nextDouble();
        return Duration.ofMillis(Math.max(1, Math.round(delay.toMillis() * factor)));
    }

    /** The current secret, and the previous one while its overlap after a rotation lasts. */
    private List<String> signingSecrets(Endpoint e, Instant now) {
        List<String> out = new ArrayList<>(2);
        out.add(secrets.decrypt(e.secretEnc()));
        if (e.previousSecretEnc() != null && e.previousExpiresAt() != null && e.previousExpiresAt().isAfter(now)) {
            out.add(secrets.decrypt(e.previousSecretEnc()));
        }
        return out;
    }

    /** Stops sending; an attempt in flight is abandoned unrecorded and made again by the next holder of the lease. */
    @Override
    public synchronized void close() {
        poller.close();
        client.close();
    }
}
