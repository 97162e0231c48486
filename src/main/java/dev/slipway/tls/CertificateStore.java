package dev.slipway.tls;

import dev.slipway.projects.DomainStatus;
import dev.slipway.secrets.SecretBox;
import dev.slipway.store.StateMachine;
import dev.slipway.webhooks.Outbox;
import java.time.Duration;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;

import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The certificates, the ACME accounts and the HTTP-01 challenges in flight, shared by every server on the
 * store. Private keys and chains are sealed with the server key. One server at a time works on a domain's
 * order: it claims the row with a guarded update, which also re-checks that the domain is still due.
 */
public final class CertificateStore {
    private static final StateMachine<CertificateStatus>.Stored CERTIFICATES = CertificateStatus.MACHINE.stored("certificates", "status");
    /** How long a claim holds when its server dies mid-order. */
    static final Duration CLAIM = Duration.ofMinutes(5);
    private static final int MAX_ERROR = 2000;

    private final Jdbi jdbi;
    private final SecretBox secrets;
    private final Clock clock;
    private final Outbox outbox;

    public CertificateStore(Jdbi jdbi, SecretBox secrets, Clock clock, Outbox outbox) {
        this.jdbi = jdbi;
        this.secrets = secrets;
        this.clock = clock;
        this.outbox = outbox;
    }

    /** A stored certificate, unsealed, for serving. */
    record Stored(String domain, String serial, String chainPem, String keyPem) {}

    /** Rows, {@code pending}, for the wanted domains that have none yet. */
    void ensure(Collection<String> domains) {
        Instant now = clock.instant();
        for (String d : domains) {
            String domain = d.toLowerCase(Locale.ROOT);
            try {
                jdbi.useHandle(h -> h.createUpdate("""
                                INSERT INTO certificates (domain, status, attempts, next_attempt_at, updated_at)
                                SELECT :d, :pending, 0, :now, :now WHERE NOT EXISTS (SELECT 1 FROM certificates WHERE domain = :d)""")
                        .bind("pending", CertificateStatus.PENDING.label()).bind("d", domain).bind("now", now).execute());
            } catch (UnableToExecuteStatementException raced) {
                // another server inserted it first
            }
        }
    }

    /**
     * Deletes the certificates (chain and sealed key) of domains no project holds any more, the domain changed or
     * removed, so they are no longer served nor kept. A row another server is ordering for is left to that order.
     * Asked of the projects table itself, not of a list handed in, so that an empty or stale list can never
     * wipe every certificate and send them all back to the CA.
     */
    List<String> forgetUnheld(Instant now) {
        return jdbi.inTransaction(h -> {
            List<String> gone = h.createQuery("""
                            SELECT domain FROM certificates c WHERE (c.claimed_until IS NULL OR c.claimed_until < :now)
                              AND NOT EXISTS (SELECT 1 FROM projects p WHERE LOWER(p.domain) = c.domain AND p.domain_status = :verified)""")
                    .bind("now", now).bind("verified", DomainStatus.VERIFIED.label()).mapTo(String.class).list();
            if (!gone.isEmpty()) {
                h.createUpdate("DELETE FROM certificates WHERE domain IN (<gone>) AND (claimed_until IS NULL OR claimed_until < :now)")
                        .bindList("gone", gone).bind("now", now).execute();
            }
            return gone;
        });
    }

    /** The wanted domains whose order is due now: new, failed and waited out, or issued and inside the renewal window. */
    List<String> due(Collection<String> domains, Instant now, Instant renewBy) {
        if (domains.isEmpty()) return List.of();
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT domain FROM certificates WHERE domain IN (<domains>) AND next_attempt_at <= :now
                          AND (status <> :issued OR expires_at <= :renewBy)
                          AND (claimed_until IS NULL OR claimed_until < :now) ORDER BY domain""")
                .bind("issued", CertificateStatus.ISSUED.label()).bindList("domains", domains.stream().map(d -> d.toLowerCase(Locale.ROOT)).toList())
                .bind("now", now).bind("renewBy", renewBy).mapTo(String.class).list());
    }

    /** Claims the domain's order for {@code node} if it is still due and nobody holds it; true when claimed. */
    boolean claim(String domain, String node, Instant now, Instant renewBy) {
        return jdbi.withHandle(h -> h.createUpdate("""
                        UPDATE certificates SET claimed_by = :node, claimed_until = :until
                        WHERE domain = :d AND next_attempt_at <= :now AND (status <> :issued OR expires_at <= :renewBy)
                          AND (claimed_until IS NULL OR claimed_until < :now)""")
                .bind("issued", CertificateStatus.ISSUED.label()).bind("node", node).bind("until", now.plus(CLAIM)).bind("d", domain).bind("now", now)
                .bind("renewBy", renewBy).execute()) == 1;
    }

    /** Stores a new certificate, releases the claim, and queues {@code certificate.issued}. */
    void issued(String domain, String chainPem, String keyPem, String serial, Instant expiresAt) {
        Instant now = clock.instant();
        jdbi.useTransaction(h -> {
            int moved = CERTIFICATES.moveTo(h, CertificateStatus.ISSUED, """
                            chain_enc = :chain, key_enc = :key, serial = :serial, expires_at = :expires, last_error = NULL,
                            attempts = 0, next_attempt_at = :now, claimed_by = NULL, claimed_until = NULL, updated_at = :now""",
                            "domain = :d")
                    .bind("chain", secrets.encrypt(chainPem)).bind("key", secrets.encrypt(keyPem)).bind("serial", serial)
                    .bind("expires", expiresAt).bind("now", now).bind("d", domain).execute();
            if (moved == 1) emit(h, domain, "certificate.issued");
        });
    }

    /**
     * Records a failed order: the reason, the next attempt, the claim released, and {@code certificate.failed}.
     * A certificate issued before stays stored and served until it expires.
     */
    void failed(String domain, String error, Instant now, Instant nextAttempt) {
        String reason = error.length() > MAX_ERROR ? error.substring(0, MAX_ERROR) : error;
        jdbi.useTransaction(h -> {
            int moved = CERTIFICATES.moveTo(h, CertificateStatus.FAILED, """
                            last_error = :error, attempts = attempts + 1, next_attempt_at = :next, claimed_by = NULL,
                            claimed_until = NULL, updated_at = :now""", "domain = :d")
                    .bind("error", reason).bind("next", nextAttempt).bind("now", now).bind("d", domain).execute();
            if (moved == 1) emit(h, domain, "certificate.failed");
        });
    }

    int attempts(String domain) {
        return jdbi.withHandle(h -> h.createQuery("SELECT attempts FROM certificates WHERE domain = :d")
                .bind("d", domain).mapTo(Integer.class).findOne().orElse(0));
    }

    /** The event goes to the account of the project that has the domain now (none: no event). */
    private void emit(Handle h, String domain, String type) {
        Optional<String> account = h.createQuery("SELECT account_id FROM projects WHERE verified_domain = :d")
                .bind("d", domain).mapTo(String.class).findOne();
        if (account.isEmpty()) return;
        CertificateView view = view(h, domain).orElseThrow();
        outbox.event(h, account.get(), type, new Event(domain, h.createQuery("SELECT id FROM projects WHERE verified_domain = :d")
                .bind("d", domain).mapTo(String.class).one(), view.status(), view.expiresAt(), view.lastError()));
    }

    /** The payload's {@code data} of a certificate event. */
    public record Event(String domain, String projectId, String status, Instant expiresAt, String lastError) {}

    /** Every stored certificate, unsealed, for this server to serve. */
    List<Stored> servable() {
        return jdbi.withHandle(h -> h.createQuery(
                        "SELECT domain, serial, chain_enc, key_enc FROM certificates WHERE chain_enc IS NOT NULL")
                .map((rs, ctx) -> new Stored(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4))).list())
                .stream().map(s -> new Stored(s.domain(), s.serial(), secrets.decrypt(s.chainPem()), secrets.decrypt(s.keyPem())))
                .toList();
    }

    /** The serial of each stored certificate: what tells a server that its copy is stale. */
    Map<String, String> serials() {
        Map<String, String> out = new HashMap<>();
        jdbi.useHandle(h -> h.createQuery("SELECT domain, serial FROM certificates WHERE chain_enc IS NOT NULL")
                .map((rs, ctx) -> Map.entry(rs.getString(1), rs.getString(2))).forEach(e -> out.put(e.getKey(), e.getValue())));
        return out;
    }

    /** When the first of the issued certificates expires; empty when none is issued. */
    public Optional<Instant> soonestExpiry() {
        return jdbi.withHandle(h -> h.createQuery("SELECT MIN(expires_at) FROM certificates WHERE status = :issued")
                .bind("issued", CertificateStatus.ISSUED.label()).mapTo(Instant.class).findOne());
    }

    public Optional<CertificateView> view(String domain) {
        if (domain == null) return Optional.empty();
        return jdbi.withHandle(h -> view(h, domain.toLowerCase(Locale.ROOT)));
    }

    private static Optional<CertificateView> view(Handle h, String domain) {
        return h.createQuery("SELECT domain, status, expires_at, last_error, next_attempt_at FROM certificates WHERE domain = :d")
                .bind("d", domain)
                .map((rs, ctx) -> new CertificateView(rs.getString(1), rs.getString(2), instant(rs.getTimestamp(3)),
                        rs.getString(4), instant(rs.getTimestamp(5))))
                .findOne();
    }

    private static Instant instant(Timestamp t) {
        return t == null ? null : t.toInstant();
    }

    /** Hosts whose HTTPS answers carry HSTS: the custom domain and production address of each project that opted in. */
    Set<String> hstsHosts(String appsDomain) {
        return Set.copyOf(jdbi.withHandle(h -> h.createQuery("SELECT name, domain FROM projects WHERE hsts")
                .map((rs, ctx) -> {
                    String domain = rs.getString(2);
                    String production = rs.getString(1) + "." + appsDomain;
                    return domain == null ? List.of(production) : List.of(production, domain);
                }).list().stream().flatMap(List::stream).map(s -> s.toLowerCase(Locale.ROOT)).toList()));
    }

    /** The ACME account key of a directory (sealed), and its URL at the CA; empty before the first order. */
    Optional<String[]> account(String directory) {
        return jdbi.withHandle(h -> h.createQuery("SELECT key_enc, location FROM acme_accounts WHERE directory_url = :d")
                .bind("d", directory).map((rs, ctx) -> new String[]{secrets.decrypt(rs.getString(1)), rs.getString(2)})
                .findOne());
    }

    /** Keeps the first account stored for a directory (two servers may register at once); returns the one kept. */
    String[] saveAccount(String directory, String keyPair, String location) {
        try {
            jdbi.useHandle(h -> h.createUpdate("""
                            INSERT INTO acme_accounts (directory_url, key_enc, location, created_at)
                            VALUES (:d, :k, :l, :now)""")
                    .bind("d", directory).bind("k", secrets.encrypt(keyPair)).bind("l", location).bind("now", clock.instant())
                    .execute());
        } catch (UnableToExecuteStatementException raced) {
            // another server stored one first: use theirs
        }
        return account(directory).orElseThrow();
    }

    void putChallenge(String token, String domain, String content) {
        jdbi.useHandle(h -> {
            h.createUpdate("DELETE FROM acme_challenges WHERE token = :t").bind("t", token).execute();
            h.createUpdate("INSERT INTO acme_challenges (token, domain, content, created_at) VALUES (:t, :d, :c, :now)")
                    .bind("t", token).bind("d", domain).bind("c", content).bind("now", clock.instant()).execute();
        });
    }

    /** The key authorization for {@code token} when it was asked for {@code host}; empty otherwise. */
    public Optional<String> challenge(String token, String host) {
        return jdbi.withHandle(h -> h.createQuery("SELECT content FROM acme_challenges WHERE token = :t AND domain = :d")
                .bind("t", token).bind("d", host.toLowerCase(Locale.ROOT)).mapTo(String.class).findOne());
    }

    /**
     * The key a TLS-ALPN-01 challenge is kept under: a digest of its key authorization (acme4j keeps its token
     * to itself) behind a prefix no HTTP-01 token can have (':'), so the apps listener never serves it.
     */
    static String alpnToken(String keyAuthorization) {
        return AlpnChallenges.PROTOCOL + ":" + HexFormat.of().formatHex(AlpnChallenges.sha256(keyAuthorization), 0, 24);
    }

    /** The key authorization of the TLS-ALPN-01 challenge in flight for {@code domain}; empty when none. */
    Optional<String> alpnChallenge(String domain) {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT content FROM acme_challenges WHERE domain = :d AND token LIKE :p ORDER BY created_at DESC""")
                .bind("d", domain.toLowerCase(Locale.ROOT)).bind("p", AlpnChallenges.PROTOCOL + ":%")
                .mapTo(String.class).findFirst());
    }

    void removeChallenge(String token) {
        jdbi.useHandle(h -> h.createUpdate("DELETE FROM acme_challenges WHERE token = :t").bind("t", token).execute());
    }
}
