package dev.slipway.domains;

import dev.slipway.projects.DomainStatus;
import dev.slipway.projects.Project;
import dev.slipway.projects.ProjectStore;
import dev.slipway.router.RouteTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Proves custom domains: at once on {@code POST /v1/projects/{id}/domain/verify}, and every
 * {@link DomainSettings#checkInterval} for each pending domain. A check is claimed in the store before it is
 * made ({@link ProjectStore#claimDomainCheck}), so servers sharing a PostgreSQL store never check one domain at
 * the same time, and the move to verified is guarded by the token, so it happens (and is told to webhooks) once.
 * A sweep checks at most {@link #BATCH} domains, one after the other, each bounded by the DNS timeout.
 *
 * <p>A verified domain enters this server's route table at once; other servers learn it on its next request
 * (the waker reads the store), within the few seconds their cache of unknown hosts keeps a miss.
 */
public final class DomainChecks implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DomainChecks.class);
    static final int BATCH = 50;

    private final ProjectStore projects;
    private final DomainProof proof;
    private final RouteTable routes;
    private final DomainSettings settings;
    private final Clock clock;
    private ScheduledExecutorService loop;

    public DomainChecks(ProjectStore projects, DomainProof proof, RouteTable routes, DomainSettings settings, Clock clock) {
        this.projects = projects;
        this.proof = proof;
        this.routes = routes;
        this.settings = settings;
        this.clock = clock;
    }

    /** Tokens for domains stored before proofs; with proofs off, every pending domain verified; then the loop. */
    public synchronized void start() {
        try {
            int given = projects.assignMissingDomainTokens();
            if (given > 0) LOG.info("gave a verification token to {} custom domain(s) stored before domain proofs", given);
            if (!settings.proof()) {
                for (String id : projects.pendingDomains()) projects.find(id).ifPresent(this::verified);
            }
        } catch (RuntimeException e) {
            LOG.warn("preparing custom domain checks failed: {}", e.toString());
        }
        if (!settings.proof() || loop != null) return;
        loop = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("domain-checks").factory());
        long every = settings.checkInterval().toMillis();
        loop.scheduleWithFixedDelay(this::sweep, every, every, TimeUnit.MILLISECONDS);
    }

    /** Checks the pending domains that are due (at most {@link #BATCH}); returns how many got verified. */
    public int sweep() {
        int verified = 0;
        try {
            Instant now = clock.instant();
            List<String> due = projects.domainChecksDue(now, BATCH);
            for (String id : due) {
                if (Thread.currentThread().isInterrupted()) break;
                if (!projects.claimDomainCheck(id, now, now.plus(settings.checkInterval()))) continue;
                Project p = projects.find(id).orElse(null);
                if (p != null && check(p).servedDomain() != null) verified++;
            }
        } catch (RuntimeException e) {
            LOG.warn("checking custom domains failed: {}", e.toString());
        }
        return verified;
    }

    /**
     * Checks the project's domain now and returns the project as it then is: verified, or still pending with
     * the reason. A verified domain (or one without a domain) is returned as it is.
     */
    public Project check(Project p) {
        if (p.domain() == null || p.domainCheck() == null || p.domainCheck().status() != DomainStatus.PENDING_VERIFICATION) return p;
        String token = p.domainCheck().token();
        if (token == null) return p; // stored before proofs: start() gives it one
        if (!settings.proof()) return verified(p);
        DomainProof.Outcome outcome = proof.check(p.domain(), token);
        if (outcome.verified()) return verified(p);
        projects.domainNotVerified(p.id(), token, outcome.reason());
        LOG.debug("domain {} of project {} not verified: {}", p.domain(), p.id(), outcome.reason());
        return projects.find(p.id()).orElse(p);
    }

    private Project verified(Project p) {
        if (projects.domainVerified(p.id(), p.domainCheck().token())) {
            LOG.info("domain {} of project {} verified", p.domain(), p.name());
        } else if (projects.domainVerifiedElsewhere(p.id())) {
            projects.domainNotVerified(p.id(), p.domainCheck().token(),
                    "another project proved control of " + p.domain() + " first; remove the domain here or from that project");
        }
        Project now = projects.find(p.id()).orElse(p);
        // into this server's routes: the project's production (if it runs here) answers at the domain from now on
        if (now.servedDomain() != null) routes.setDomain(now.servedDomain(), now.name());
        return now;
    }

    @Override
    public synchronized void close() {
        if (loop != null) loop.shutdownNow();
        loop = null;
    }
}
