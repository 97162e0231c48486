package dev.slipway.tls;

import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The certificate loop: every {@link TlsSettings#checkEvery} it loads the certificates any server stored, then
 * orders those of the wanted domains that are due (new, failed and waited out, or within
 * {@link TlsSettings#renewBefore} of expiry), one claimed domain at a time. A failed order waits
 * {@code retryMin · 2^(failures-1)}, at most {@code retryMax}, before the next.
 */
public final class CertificateManager implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CertificateManager.class);

    private final TlsSettings settings;
    private final CertificateStore store;
    private final Certificates certificates;
    private final Supplier<Collection<String>> domains;
    private final String appsDomain;
    private final String node;
    private final Clock clock;
    private final AcmeIssuer issuer;
    private final ScheduledExecutorService loop;
    private volatile Map<String, String> loadedSerials = Map.of();
    private volatile Set<String> hsts = Set.of();
    private volatile Set<String> wantedNow = Set.of();
    private final AtomicLong passes = new AtomicLong();

    /** @param domains the domains that get certificates (the composition root decides which) */
    CertificateManager(TlsSettings settings, CertificateStore store, Certificates certificates,
                       Supplier<Collection<String>> domains, String appsDomain, String node, Clock clock) {
        this.settings = settings;
        this.store = store;
        this.certificates = certificates;
        this.domains = domains;
        this.appsDomain = appsDomain.toLowerCase(Locale.ROOT);
        this.node = node;
        this.clock = clock;
        this.issuer = new AcmeIssuer(settings, store);
        this.loop = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("certificates").factory());
    }

    void start() {
        reload();
        long every = settings.checkEvery().toMillis();
        loop.scheduleWithFixedDelay(this::tick, 0, every, TimeUnit.MILLISECONDS);
    }

    boolean hsts(String host) {
        return hsts.contains(host);
    }

    Set<String> hstsHosts() {
        return hsts;
    }

    /** One pass; never throws (the loop must go on). */
    void tick() {
        try {
            for (String d : store.forgetUnheld(clock.instant())) LOG.info("certificate for {}: deleted, no project holds the domain any more", d);
            reload();
            List<String> wanted = wanted();
            wantedNow = Set.copyOf(wanted);
            store.ensure(wanted);
            Instant now = clock.instant();
            Instant renewBy = now.plus(settings.renewBefore());
            boolean changed = false;
            for (String domain : store.due(wanted, now, renewBy)) {
                if (Thread.currentThread().isInterrupted()) return;
                if (!store.claim(domain, node, clock.instant(), clock.instant().plus(settings.renewBefore()))) continue;
                order(domain);
                changed = true;
            }
            if (changed) reload();
        } catch (RuntimeException e) {
            LOG.warn("the certificate check failed: {}", e.toString());
        } finally {
            passes.incrementAndGet();
        }
    }

    /** Whether {@code domain} (lower case) gets a certificate, as of the last pass. */
    boolean wants(String domain) {
        return wantedNow.contains(domain);
    }

    /** Check passes finished so far. */
    long passes() {
        return passes.get();
    }

    /** The supplier's domains that an ACME CA can validate here: hostnames, never addresses under the apps domain. */
    private List<String> wanted() {
        Collection<String> all = domains.get();
        return all == null ? List.of() : all.stream().filter(Objects::nonNull).map(d -> d.toLowerCase(Locale.ROOT))
                .filter(d -> !d.equals(appsDomain) && !d.endsWith("." + appsDomain)).distinct().sorted().toList();
    }

    private void order(String domain) {
        LOG.info("certificate for {}: ordering from {}", domain, settings.directoryUrl());
        try {
            AcmeIssuer.Issued issued = issuer.issue(domain);
            store.issued(domain, issued.chainPem(), issued.keyPem(), issued.serial(), issued.expiresAt());
            LOG.info("certificate for {}: issued, serial {}, expires {}", domain, issued.serial(), issued.expiresAt());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            Instant now = clock.instant();
            store.failed(domain, "interrupted: the server stopped during the order", now, now);
        } catch (Exception e) {
            String reason = e.getMessage() == null ? e.toString() : e.getMessage();
            Duration wait = backoff(store.attempts(domain) + 1, settings.retryMin(), settings.retryMax());
            Instant now = clock.instant();
            store.failed(domain, reason, now, now.plus(wait));
            LOG.warn("certificate for {}: failed ({}); next attempt in {}", domain, reason, wait);
        }
    }

    /** min, 2·min, 4·min … capped at max, for the {@code failure}-th failure in a row (from 1). */
    static Duration backoff(int failure, Duration min, Duration max) {
        int doublings = Math.min(Math.max(failure - 1, 0), 30);
        Duration d = min.multipliedBy(1L << doublings);
        return d.compareTo(max) > 0 ? max : d;
    }

    /** Loads what the store holds when it differs from what this server serves (another server may have renewed). */
    void reload() {
        try {
            hsts = store.hstsHosts(appsDomain);
            Map<String, String> serials = store.serials();
            if (serials.equals(loadedSerials)) return;
            Map<String, Certificates.Entry> entries = new HashMap<>();
            for (CertificateStore.Stored s : store.servable()) {
                try {
                    entries.put(s.domain(), new Certificates.Entry(s.domain() + "#" + s.serial(), Pem.chain(s.chainPem()),
                            Pem.privateKey(s.keyPem())));
                } catch (RuntimeException e) {
                    LOG.warn("the stored certificate of {} cannot be read: {}", s.domain(), e.getMessage());
                }
            }
            certificates.replace(entries);
            loadedSerials = serials;
        } catch (RuntimeException e) {
            LOG.warn("loading the certificates failed: {}", e.toString());
        }
    }

    @Override
    public void close() {
        loop.shutdownNow();
        try {
            loop.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
