package dev.slipway.operator;

import dev.slipway.server.Slipway;
import dev.slipway.config.ServerConfig;
import dev.slipway.core.MicrosClock;
import dev.slipway.databases.AdminServers;
import dev.slipway.databases.DbKind;
import dev.slipway.isolation.IsolationMode;
import dev.slipway.source.GitHosts;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Callable;

@Command(name = "server", mixinStandardHelpOptions = true,
        description = "Run the Slipway server (API listener and apps listener). Flags win over environment variables.")
public final class ServerCommand implements Callable<Integer> {
    @Mixin
    StoreOptions store;

    @Option(names = "--host", defaultValue = "${env:SLIPWAY_HOST:-127.0.0.1}",
            description = "Address both listeners bind to (env SLIPWAY_HOST; default: ${DEFAULT-VALUE})")
    String host;

    @Option(names = "--api-port", defaultValue = "${env:SLIPWAY_API_PORT:-8080}",
            description = "Port of the API listener (env SLIPWAY_API_PORT; default: ${DEFAULT-VALUE})")
    int apiPort;

    @Option(names = "--apps-port", defaultValue = "${env:SLIPWAY_APPS_PORT:-8081}",
            description = "Port of the apps listener that serves deployed apps (env SLIPWAY_APPS_PORT; default: ${DEFAULT-VALUE})")
    int appsPort;

    @Option(names = "--image-registry",
            description = "Push every build as an OCI image to this registry (host[:port][/path]); with it, SLIPWAY_IMAGE_BASES "
                    + "and SLIPWAY_IMAGE_INSECURE apply (env SLIPWAY_IMAGE_REGISTRY; default: off)")
    String imageRegistry;

    @Option(names = "--runtime",
            description = "What runs the apps: local (processes of this server, in its sandbox) or kubernetes (a Deployment "
                    + "per deployment of its image; needs --image-registry) (env SLIPWAY_RUNTIME; default: local)")
    String runtimeKind;

    @Option(names = "--kubeconfig",
            description = "With --runtime=kubernetes: a kubeconfig file (env SLIPWAY_KUBECONFIG; default: the in-cluster "
                    + "service account, or ~/.kube/config)")
    String kubeconfig;

    @Option(names = "--apps-https-port", defaultValue = "${env:SLIPWAY_APPS_HTTPS_PORT}",
            description = "Port of the apps HTTPS listener; turns on automatic HTTPS (ACME certificates for custom domains, "
                    + "HTTP→HTTPS redirects) (env SLIPWAY_APPS_HTTPS_PORT; default: off)")
    Integer appsHttpsPort;

    @Option(names = "--apps-tls-cert", defaultValue = "${env:SLIPWAY_APPS_TLS_CERT}",
            description = "PEM certificate chain for *.<apps domain>, served for project and deployment addresses "
                    + "(env SLIPWAY_APPS_TLS_CERT; needs --apps-tls-key and --apps-https-port)")
    Path appsTlsCert;

    @Option(names = "--apps-tls-key", defaultValue = "${env:SLIPWAY_APPS_TLS_KEY}",
            description = "PEM private key of --apps-tls-cert (env SLIPWAY_APPS_TLS_KEY)")
    Path appsTlsKey;

    @Option(names = "--apps-domain", defaultValue = "${env:SLIPWAY_APPS_DOMAIN:-localhost}",
            description = "Domain under which apps get <project>.<domain> (env SLIPWAY_APPS_DOMAIN; default: ${DEFAULT-VALUE})")
    String appsDomain;

    @Option(names = "--domain-verification",
            description = "dns: a custom domain is served once a TXT record at _slipway-challenge.<domain> holds its token; "
                    + "off: at once, for a single-team install (env SLIPWAY_DOMAIN_VERIFICATION; default: dns)")
    String domainVerification;

    @Option(names = "--public-url", defaultValue = "${env:SLIPWAY_PUBLIC_URL}",
            description = "Address clients reach the API at, for absolute links (env SLIPWAY_PUBLIC_URL; default: http://<host>:<api port>)")
    String publicUrl;

    @Option(names = "--regions", defaultValue = "${env:SLIPWAY_REGIONS:-us-east-1}",
            description = "Comma-separated regions this installation runs apps in; others are refused (env SLIPWAY_REGIONS; default: ${DEFAULT-VALUE})")
    String regions;

    @Option(names = "--db-pool-size", defaultValue = "${env:SLIPWAY_DB_POOL_SIZE:-10}",
            description = "Connections to the store (env SLIPWAY_DB_POOL_SIZE; default: ${DEFAULT-VALUE})")
    int poolSize;

    @Option(names = "--upload-limit-bytes", defaultValue = "${env:SLIPWAY_UPLOAD_LIMIT_BYTES:-104857600}",
            description = "Largest zip POST /v1/uploads accepts, in bytes (env SLIPWAY_UPLOAD_LIMIT_BYTES; default: ${DEFAULT-VALUE})")
    long uploadLimitBytes;

    @Option(names = "--git-hosts", defaultValue = "${env:SLIPWAY_GIT_HOSTS}",
            description = "Clone bases overriding the public hosts, e.g. github=http://127.0.0.1:3000,gitlab=https://git.example.com "
                    + "(env SLIPWAY_GIT_HOSTS; default: https://github.com, https://gitlab.com, https://bitbucket.org)")
    String gitHosts;

    @Option(names = "--sandbox-port", defaultValue = "${env:SLIPWAY_SANDBOX_PORT}",
            description = "Serve the plant-store sandbox on its own port instead of <api>/sandbox (env SLIPWAY_SANDBOX_PORT; default: none)")
    Integer sandboxPort;

    @Option(names = "--build-slots", defaultValue = "${env:SLIPWAY_BUILD_SLOTS:-2}",
            description = "Deployments this server builds at once; a migration waiting for a slot is pending (env SLIPWAY_BUILD_SLOTS; default: ${DEFAULT-VALUE})")
    int buildSlots;

    @Option(names = "--postgres-admin-url", defaultValue = "${env:SLIPWAY_POSTGRES_ADMIN_URL}",
            description = "PostgreSQL server where database.action create makes databases, as an admin that may create "
                    + "roles and databases: JDBC (jdbc:postgresql://host:5432/postgres?user=admin&password=...) or "
                    + "postgres://admin:password@host:5432/postgres (env SLIPWAY_POSTGRES_ADMIN_URL; default: not configured)")
    String postgresAdminUrl;

    @Option(names = "--mysql-admin-url", defaultValue = "${env:SLIPWAY_MYSQL_ADMIN_URL}",
            description = "MySQL/MariaDB server where database.action create makes databases, as an admin that may create "
                    + "databases and users: JDBC (jdbc:mariadb://host:3306/?user=root&password=...) or "
                    + "mysql://root:password@host:3306 (env SLIPWAY_MYSQL_ADMIN_URL; default: not configured)")
    String mysqlAdminUrl;

    @Option(names = "--webhooks-allow-private", arity = "0..1", fallbackValue = "true", defaultValue = "${env:SLIPWAY_WEBHOOKS_ALLOW_PRIVATE:-false}",
            description = "Let webhooks and database connect URLs target loopback, private and link-local addresses (env SLIPWAY_WEBHOOKS_ALLOW_PRIVATE; default: ${DEFAULT-VALUE})")
    boolean webhooksAllowPrivate;

    @Option(names = "--isolation", defaultValue = "${env:SLIPWAY_ISOLATION:-auto}",
            description = "sandbox: every app and build in its own sandbox (refuses to start unless a check cell runs: "
                    + "bubblewrap, passt and nftables, root, cgroups, the tun device); none: plain processes of the server, NOT "
                    + "isolated, for every account; auto: the sandbox when its check passes, else NOT isolated and only the "
                    + "first account is served (env SLIPWAY_ISOLATION; default: ${DEFAULT-VALUE})")
    String isolation;

    @Override
    public Integer call() throws Exception {
        long started = System.nanoTime();
        ServerConfig config;
        AdminServers admins;
        try {
            config = config();
            admins = AdminServers.of(config.postgresAdminUrl(), config.mysqlAdminUrl());
        } catch (IllegalArgumentException e) {
            System.err.println("slipway server: " + e.getMessage());
            return 2;
        }
        Slipway slipway;
        try {
            slipway = Slipway.start(config, MicrosClock.system(), System.out);
        } catch (dev.slipway.isolation.IsolationUnavailable | IllegalArgumentException e) {
            System.err.println("slipway server: " + e.getMessage());
            return 2;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("Slipway stopping: finishing requests in flight");
            System.out.flush();
            slipway.close();
            System.out.println("Slipway stopped");
            System.out.flush();
            stopped.countDown();
        }, "shutdown"));
        System.out.printf("Slipway API listening on http://%s:%d/v1 (store: %s) — ready in %d ms%n",
                host, slipway.apiPort(), slipway.database().dialect().name().toLowerCase(),
                (System.nanoTime() - started) / 1_000_000);
        System.out.printf("Slipway dashboard at http://%s:%d/dashboard%n", host, slipway.apiPort());
        if (sandboxPort != null) System.out.printf("Slipway sandbox listening on http://%s:%d/sandbox%n", host, slipway.sandboxPort());
        System.out.printf("Slipway apps listening on http://<project>.%s:%d%n", appsDomain, slipway.appsPort());
        if (slipway.appsHttpsPort() != null) {
            System.out.printf("Slipway apps HTTPS on port %d (certificates from %s)%n", slipway.appsHttpsPort(),
                    slipway.config().tls().directoryUrl());
        }
        dev.slipway.isolation.Confinement confinement = slipway.engine().confinement();
        System.out.println("Isolation: " + confinement.summary());
        if (!confinement.isolated()) System.out.println(confinement.warning());
        StringBuilder providers = new StringBuilder();
        for (DbKind kind : DbKind.values()) {
            providers.append(providers.isEmpty() ? "" : ", ").append(kind.label()).append(' ').append(admins.admin(kind)
                    .map(a -> "on " + a.host() + ":" + a.port()).orElse("not configured (" + kind.adminSetting() + ")"));
        }
        System.out.println("Slipway databases (action create): " + providers);
        System.out.flush();
        if (Training.requested()) {
            Training.exercise(slipway.apiPort());
            return 0; // the shutdown hook stops the server
        }
        stopped.await();
        return 0;
    }

    /** The flags over the environment; an {@link IllegalArgumentException} names what is wrong. */
    private ServerConfig config() {
        if (buildSlots < 1 || buildSlots > 64) throw new IllegalArgumentException("--build-slots must be from 1 to 64");
        if (uploadLimitBytes <= 0) throw new IllegalArgumentException("--upload-limit-bytes must be positive");
        List<String> regionList = Arrays.stream(regions.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
        ServerConfig.Builder builder = ServerConfig.builder(store.dataDir).environment(System.getenv());
        if (domainVerification != null) {
            builder.domainProof(dev.slipway.domains.DomainSettings.proof("--domain-verification", domainVerification));
        }
        return builder
                .host(host).ports(apiPort, appsPort).databaseUrl(store.databaseUrl).databasePoolSize(poolSize)
                .appsDomain(appsDomain).publicUrl(publicUrl).regions(regionList).uploadLimit(uploadLimitBytes)
                .gitHosts(GitHosts.parse(gitHosts)).buildSlots(buildSlots)
                .databaseAdmins(blankToNull(postgresAdminUrl), blankToNull(mysqlAdminUrl)).sandboxPort(sandboxPort)
                .allowPrivateTargets(webhooksAllowPrivate).isolation(IsolationMode.parse(isolation))
                .appsHttpsPort(appsHttpsPort).appsTlsCertificate(appsTlsCert, appsTlsKey).imageRegistry(imageRegistry)
                .runtimeKind(runtimeKind).kubeconfig(kubeconfig).build();
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.strip();
    }
}
