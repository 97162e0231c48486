package dev.slipway.operator;

import dev.slipway.isolation.Confinement;
import dev.slipway.isolation.IsolationUnavailable;
import dev.slipway.server.Slipway;
import dev.slipway.store.StoreUnopened;
import dev.slipway.config.ServerConfig;
import dev.slipway.edge.EdgeSettings;
import dev.slipway.core.Env;
import dev.slipway.core.MicrosClock;
import dev.slipway.databases.AdminServers;
import dev.slipway.databases.DbKind;
import dev.slipway.domains.DomainSettings;
import dev.slipway.isolation.IsolationMode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import sun.misc.Signal;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Callable;

@Command(name = "server", mixinStandardHelpOptions = true,
        description = "Run the Slipway server (API listener and apps listener). Flags win over environment variables.")
public final class ServerCommand implements Callable<Integer> {
    @Mixin
    StoreOptions store;

    @Option(names = "--host",
            description = "Address both listeners bind to (env SLIPWAY_HOST; default: 127.0.0.1)")
    String host;

    @Option(names = "--api-port",
            description = "Port of the API listener (env SLIPWAY_API_PORT; default: 8080)")
    Integer apiPort;

    @Option(names = "--apps-port",
            description = "Port of the apps listener that serves deployed apps (env SLIPWAY_APPS_PORT; default: 8081)")
    Integer appsPort;

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

    @Option(names = "--apps-https-port",
            description = "Port of the apps HTTPS listener; turns on automatic HTTPS (ACME certificates for custom domains, "
                    + "HTTP→HTTPS redirects) (env SLIPWAY_APPS_HTTPS_PORT; default: off)")
    Integer appsHttpsPort;

    @Option(names = "--apps-tls-cert",
            description = "PEM certificate chain for *.<apps domain>, served for project and deployment addresses "
                    + "(env SLIPWAY_APPS_TLS_CERT; needs --apps-tls-key and --apps-https-port)")
    Path appsTlsCert;

    @Option(names = "--apps-tls-key",
            description = "PEM private key of --apps-tls-cert (env SLIPWAY_APPS_TLS_KEY)")
    Path appsTlsKey;

    @Option(names = "--apps-domain",
            description = "Domain under which apps get <project>.<domain> (env SLIPWAY_APPS_DOMAIN; default: localhost)")
    String appsDomain;

    @Option(names = "--domain-verification",
            description = "dns: a custom domain is served once a TXT record at _slipway-challenge.<domain> holds its token; "
                    + "off: at once, for a single-team install (env SLIPWAY_DOMAIN_VERIFICATION; default: dns)")
    String domainVerification;

    @Option(names = "--public-url",
            description = "Address clients reach the API at, for absolute links (env SLIPWAY_PUBLIC_URL; default: http://<host>:<api port>)")
    String publicUrl;

    @Option(names = "--regions",
            description = "Comma-separated regions this installation runs apps in; others are refused (env SLIPWAY_REGIONS; default: us-east-1)")
    String regions;

    @Option(names = "--db-pool-size",
            description = "Connections to the store (env SLIPWAY_DB_POOL_SIZE; default: 10)")
    Integer poolSize;

    @Option(names = "--upload-limit-bytes",
            description = "Largest zip POST /v1/uploads accepts, in bytes (env SLIPWAY_UPLOAD_LIMIT_BYTES; default: 104857600)")
    Long uploadLimitBytes;

    @Option(names = "--git-hosts",
            description = "Clone bases overriding the public hosts, e.g. github=http://127.0.0.1:3000,gitlab=https://git.example.com "
                    + "(env SLIPWAY_GIT_HOSTS; default: github=https://github.com,gitlab=https://gitlab.com,"
                    + "bitbucket=https://bitbucket.org)")
    String gitHosts;

    @Option(names = "--git-ssh-hosts",
            description = "SSH bases for projects with a deploy key, e.g. github=ssh://git@github.com,gitlab=ssh://git@git.example.com:2222 "
                    + "(env SLIPWAY_GIT_SSH_HOSTS; default: github=ssh://git@github.com,gitlab=ssh://git@gitlab.com,"
                    + "bitbucket=ssh://git@bitbucket.org)")
    String gitSshHosts;

    @Option(names = "--git-apis",
            description = "REST API bases for commit statuses, e.g. github=https://git.example.com/api/v1 for a Gitea "
                    + "(env SLIPWAY_GIT_APIS; default: github=https://api.github.com,gitlab=https://gitlab.com/api/v4,"
                    + "bitbucket=https://api.bitbucket.org/2.0)")
    String gitApis;

    @Option(names = "--sandbox-port",
            description = "Serve the plant-store sandbox on its own port instead of <api>/sandbox (env SLIPWAY_SANDBOX_PORT; default: none)")
    Integer sandboxPort;

    @Option(names = "--build-slots",
            description = "Deployments this server builds at once; a migration waiting for a slot is pending (env SLIPWAY_BUILD_SLOTS; default: 2)")
    Integer buildSlots;

    @Option(names = "--postgres-admin-url",
            description = "PostgreSQL server where database.action create makes databases, as an admin that may create "
                    + "roles and databases: JDBC (jdbc:postgresql://host:5432/postgres?user=admin&password=...) or "
                    + "postgres://admin:password@host:5432/postgres (env SLIPWAY_POSTGRES_ADMIN_URL; default: not configured)")
    String postgresAdminUrl;

    @Option(names = "--mysql-admin-url",
            description = "MySQL/MariaDB server where database.action create makes databases, as an admin that may create "
                    + "databases and users: JDBC (jdbc:mariadb://host:3306/?user=root&password=...) or "
                    + "mysql://root:password@host:3306 (env SLIPWAY_MYSQL_ADMIN_URL; default: not configured)")
    String mysqlAdminUrl;

    @Option(names = "--webhooks-allow-private", arity = "0..1", fallbackValue = "true",
            description = "Let webhooks and database connect URLs target loopback, private and link-local addresses (env SLIPWAY_WEBHOOKS_ALLOW_PRIVATE; default: false)")
    Boolean webhooksAllowPrivate;

    @Option(names = "--isolation",
            description = "sandbox: every app and build in its own sandbox (refuses to start unless a check cell runs: "
                    + "bubblewrap, passt and nftables, root, cgroups, the tun device); none: plain processes of the server, NOT "
                    + "isolated, for every account; auto: the sandbox when its check passes, else NOT isolated and only the "
                    + "first account is served (env SLIPWAY_ISOLATION; default: auto)")
    String isolation;

    @Override
    public Integer call() throws Exception {
        long started = System.nanoTime();
        ServerConfig config;
        AdminServers admins;
        Env env = Env.system();
        try {
            config = config(env);
            admins = AdminServers.of(config.databaseAdmins().postgresUrl(), config.databaseAdmins().mysqlUrl());
        } catch (IllegalArgumentException e) {
            System.err.println("slipway server: " + e.getMessage());
            return 2;
        }
        Slipway slipway;
        try {
            slipway = Slipway.start(config, MicrosClock.system(), System.out);
        } catch (IsolationUnavailable | IllegalArgumentException e) {
            System.err.println("slipway server: " + e.getMessage());
            return 2;
        } catch (StoreUnopened e) {
            System.err.println("slipway server: " + e.getMessage());
            return 1;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        AtomicBoolean stopping = new AtomicBoolean();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (stopping.compareAndSet(false, true)) stop(slipway, env);
            stopped.countDown();
        }, "shutdown"));
        // H2's own shutdown hook closes the embedded store as soon as the JVM begins to exit, beside the hook above, and
        // the stop's last writes (the apps' last log lines, their states) failed on a closed store: a SIGTERM or a Ctrl-C
        // stops the server first and exits after, with the code the signal would have given
        for (String name : List.of("TERM", "INT")) {
            Signal.handle(new Signal(name), signal -> {
                if (stopping.compareAndSet(false, true)) stop(slipway, env);
                System.exit(128 + signal.getNumber());
            });
        }
        // a line in one write: printf writes it piece by piece, and a log line of another thread got between them
        System.out.println(String.format("Slipway API listening on http://%s:%d/v1 (store: %s) — ready in %d ms",
                config.listeners().host(), slipway.apiPort(), slipway.database().dialect().name().toLowerCase(),
                (System.nanoTime() - started) / 1_000_000));
        String host = config.listeners().host();
        System.out.println(String.format("Slipway dashboard at http://%s:%d/dashboard", host, slipway.apiPort()));
        if (config.listeners().sandboxPort() != null) {
            System.out.println(String.format("Slipway sandbox listening on http://%s:%d/sandbox", host, slipway.sandboxPort()));
        }
        String edge = slipway.edge() == null ? "" : String.format(" (edge process %d, %s)", slipway.edge().pid(),
                slipway.edge().adopted() ? "kept serving from the last run" : "started");
        System.out.println(String.format("Slipway apps listening on http://<project>.%s:%d%s", config.listeners().appsDomain(),
                slipway.appsPort(), edge));
        if (slipway.appsHttpsPort() != null) {
            System.out.println(String.format("Slipway apps HTTPS on port %d (certificates from %s)", slipway.appsHttpsPort(),
                    slipway.config().tls().directoryUrl()));
        }
        Confinement confinement = slipway.engine().confinement();
        System.out.println("Isolation: " + confinement.summary());
        if (!confinement.isolated()) System.out.println(confinement.warning());
        StringBuilder providers = new StringBuilder();
        for (DbKind kind : DbKind.values()) {
            providers.append(providers.isEmpty() ? "" : ", ").append(kind.label()).append(' ').append(admins.admin(kind)
                    .map(a -> "on " + a.host() + ":" + a.port()).orElse("not configured (" + kind.adminSetting() + ")"));
        }
        System.out.println("Slipway databases (action create): " + providers);
        System.out.flush();
        if (Training.requested(env)) {
            Training.exercise(slipway.apiPort(), slipway.appsPort());
            return 0; // the shutdown hook stops the server
        }
        stopped.await();
        return 0;
    }

    private static void stop(Slipway slipway, Env env) {
        // a training run's throwaway data dir goes with it: nothing of it may keep running
        boolean stopApps = slipway.config().runtime().stopAppsWithServer() || Training.requested(env);
        System.out.println("Slipway stopping: finishing requests in flight" + (stopApps ? ", stopping the apps"
                : "; the apps keep running, and the next start adopts them"));
        System.out.flush();
        if (stopApps) slipway.close();
        else slipway.leave();
        System.out.println("Slipway stopped");
        System.out.flush();
    }

    /** The flags over the environment; an {@link IllegalArgumentException} names what is wrong. */
    ServerConfig config(Env env) {
        ServerConfig.Builder b = ServerConfig.builder(store.dataDir(env)).environment(env);
        if (Training.requested(env)) b.edge(EdgeSettings.fromEnv(env).training());
        if (buildSlots != null) {
            if (buildSlots < 1 || buildSlots > 64) throw new IllegalArgumentException("--build-slots must be from 1 to 64");
            b.buildSlots(buildSlots);
        }
        if (uploadLimitBytes != null) {
            if (uploadLimitBytes <= 0) throw new IllegalArgumentException("--upload-limit-bytes must be positive");
            b.uploadLimit(uploadLimitBytes);
        }
        if (domainVerification != null) b.domainProof(DomainSettings.proof("--domain-verification", domainVerification));
        if (host != null) b.host(host);
        if (apiPort != null) b.apiPort(apiPort);
        if (appsPort != null) b.appsPort(appsPort);
        if (store.databaseUrl != null) b.databaseUrl(store.databaseUrl);
        if (poolSize != null) b.databasePoolSize(poolSize);
        if (appsDomain != null) b.appsDomain(appsDomain);
        if (publicUrl != null) b.publicUrl(blankToNull(publicUrl));
        if (regions != null) b.regions(Arrays.stream(regions.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList());
        if (gitHosts != null) b.gitHosts(gitHosts);
        if (gitSshHosts != null) b.gitSshHosts(gitSshHosts);
        if (gitApis != null) b.gitApis(gitApis);
        if (postgresAdminUrl != null) b.postgresAdminUrl(blankToNull(postgresAdminUrl));
        if (mysqlAdminUrl != null) b.mysqlAdminUrl(blankToNull(mysqlAdminUrl));
        if (sandboxPort != null) b.sandboxPort(sandboxPort);
        if (webhooksAllowPrivate != null) b.allowPrivateTargets(webhooksAllowPrivate);
        if (isolation != null) b.isolation(IsolationMode.parse(isolation));
        if (appsHttpsPort != null) b.appsHttpsPort(appsHttpsPort);
        if (appsTlsCert != null) b.appsTlsCert(appsTlsCert);
        if (appsTlsKey != null) b.appsTlsKey(appsTlsKey);
        return b.imageRegistry(imageRegistry).runtimeKind(runtimeKind).kubeconfig(kubeconfig).build();
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.strip();
    }
}
