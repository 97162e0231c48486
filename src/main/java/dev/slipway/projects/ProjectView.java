package dev.slipway.projects;

import dev.slipway.runtime.HealthSpec;
import dev.slipway.api.AppUrls;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The project as the API shows it: env var names only, never values; its database as
 * {@code {type, project_id (the db_ id), status}} (null: none), never its URL or credentials. With a custom
 * domain, {@code domain_status} and the TXT record that proves it ({@code domain_verification}); both null without.
 * Its custom domain's certificate as {@code {status, expires_at, last_error}} (null: no certificate wanted, or
 * HTTPS is off), never its key. Its git credentials by kind and user, never their token or key.
 */
public record ProjectView(String id, String name, String source, String repo, String image, String branch, String framework,
                          String rootDirectory, String dockerfilePath, String region, String domain, String domainStatus,
                          DomainVerification domainVerification, String url, String productionDeploymentId,
                          List<String> envVars, Database database, boolean hsts, Certificate certificate,
                          RegistryAuth registryAuth, GitAuth gitCredentials, String gitSshPublicKey, List<String> watchPaths,
                          String deployOnPush, Boolean commitStatuses, GitWebhook gitWebhook, String instanceType,
                          HealthCheckView healthCheck, Integer replicas, Instant createdAt) {
    public static final String RECORD_PREFIX = "_slipway-challenge.";

    public static ProjectView of(Project p, AppUrls urls) {
        return of(p, urls, Certificates.NONE);
    }

    public static ProjectView of(Project p, AppUrls urls, Certificates certificates) {
        return of(p, urls, certificates, null);
    }

    /** @param registryAuth the registry and user of its registry login, or null: none */
    public static ProjectView of(Project p, AppUrls urls, Certificates certificates, RegistryAuth registryAuth) {
        return of(p, urls, certificates, registryAuth, ProjectGit.NONE);
    }

    /** @param git its git settings ({@link ProjectGit#NONE}: none) */
    public static ProjectView of(Project p, AppUrls urls, Certificates certificates, RegistryAuth registryAuth, ProjectGit git) {
        Project.DomainCheck check = p.domain() == null ? null : p.domainCheck();
        boolean image = ProjectInput.IMAGE.equals(p.source());
        return new ProjectView(p.id(), p.name(), p.source(), image ? null : p.repo(), image ? p.repo() : null, p.branch(), p.framework(), p.rootDirectory(), p.dockerfilePath(), p.region(),
                p.domain(), check == null || check.status() == null ? null : check.status().label(),
                check == null || check.token() == null ? null : new DomainVerification("TXT", RECORD_PREFIX + p.domain(),
                        check.token(), check.checkedAt(), check.status() == DomainStatus.VERIFIED ? null : check.reason()),
                urls.production(p.name()), p.productionDeploymentId(), p.envVarNames(),
                p.database() == null ? null : new Database(p.database().type(), p.database().id(), p.database().state()),
                p.hsts(), p.domain() == null ? null : certificates.of(p.domain()).orElse(null), registryAuth,
                git.credentialType() == null ? null : new GitAuth(git.credentialType(), git.username()), git.sshPublicKey(),
                git.watchPaths(), ProjectInput.GIT_SOURCES.contains(p.source()) ? git.deployOnPush() : null,
                ProjectInput.GIT_SOURCES.contains(p.source()) ? git.commitStatuses() : null,
                git.webhookId() == null ? null
                        : new GitWebhook(urls.api(GitWebhook.PATH + git.webhookId()), git.webhookCreatedAt()),
                p.run().instanceType(), HealthCheckView.of(p.run().health()), p.run().replicas(), p.createdAt());
    }

    /** Its own health check as reads show it: {@code status} as {@code 200-399}. */
    public record HealthCheckView(String path, String status, int intervalSeconds, int graceSeconds, int failures) {
        static HealthCheckView of(HealthSpec h) {
            return h == null ? null : new HealthCheckView(h.path(), h.statusMin() == h.statusMax() ? Integer.toString(h.statusMin())
                    : h.range(), (int) h.interval().toSeconds(), (int) h.grace().toSeconds(), h.failures());
        }
    }

    /** Its git credentials as reads show them: {@code token} or {@code ssh}, and the user; never the token or key. */
    public record GitAuth(String type, String username) {}

    /** Its push webhook as reads show it: where the git host sends pushes; never its secret. */
    public record GitWebhook(String url, Instant createdAt) {
        /** The path of a push webhook's URL, before its id. */
        public static final String PATH = "/v1/git-webhooks/";
    }

    public record Database(String type, String projectId, String status) {}

    /** A registry login as reads show it: never its password. */
    public record RegistryAuth(String registry, String username) {}

    /**
     * The DNS record that proves control of the domain: a {@code type} record at {@code name} holding {@code value}.
     *
     * @param checkedAt when it was last looked up, or null
     * @param reason    why the last look-up did not verify the domain; null once verified or before any look-up
     */
    public record DomainVerification(String type, String name, String value, Instant checkedAt, String reason) {}

    /** A custom domain's certificate: {@code pending}, {@code issued} or {@code failed}. */
    public record Certificate(String status, Instant expiresAt, String lastError) {}

    /** Where the certificate of a domain is read from (the HTTPS feature, wired by the composition root). */
    public interface Certificates {
        Certificates NONE = domain -> Optional.empty();

        Optional<Certificate> of(String domain);
    }
}
