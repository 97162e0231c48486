package dev.slipway.config;

import dev.slipway.backup.BackupSettings;
import dev.slipway.disk.DiskSettings;
import dev.slipway.edge.EdgeSettings;
import dev.slipway.build.BuildSettings;
import dev.slipway.core.Env;
import dev.slipway.domains.DomainSettings;
import dev.slipway.images.ImageSettings;
import dev.slipway.isolation.IsolationMode;
import dev.slipway.isolation.SandboxSettings;
import dev.slipway.kubernetes.KubernetesSettings;
import dev.slipway.mail.MailSettings;
import dev.slipway.net.ClientLimits;
import dev.slipway.net.EgressAllow;
import dev.slipway.net.TrustedProxies;
import dev.slipway.runtime.RuntimeSettings;
import dev.slipway.source.GitHosts;
import dev.slipway.tls.TlsSettings;
import dev.slipway.webhooks.WebhookSettings;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Everything a server needs to start, made by {@link #builder}, one record per concern. The {@code server}
 * command sets its flags on a builder after {@link Builder#environment}, which is the one place the server's
 * settings are read from the process environment (flags win); tests set what they need on a builder and
 * nothing else. {@link SettingsTable} lists every setting.
 *
 * @param dataDir        the store's embedded file, artifacts, workspaces, caches and the key file live under it
 * @param listeners      where the server listens and how it is reached
 * @param store          the store, its pool, the secret key and the first start's account
 * @param databaseAdmins where {@code database.action: create} makes databases
 * @param deployments    regions, the upload limit, the git hosts and the build slots
 * @param isolation      the sandbox: its mode, warm networks, tools and the egress allow-list
 * @param webhooks       webhook delivery settings (private targets, retry schedule)
 * @param build          the build engine's settings
 * @param runtime        the runtime's timings, with this server's regions
 * @param domains        how custom domains are proven (DNS TXT record or off) and which DNS servers are asked
 * @param tls            automatic HTTPS for the apps: the HTTPS port, the wildcard certificate, the ACME CA
 * @param images         where builds are pushed as OCI images; off without a registry
 * @param kubernetes     the runtime: local processes (default), or Kubernetes and how to reach the cluster
 * @param clientLimits   what one client may take of the public listeners: head deadline, body rate, connections
 * @param trustedProxies the proxies in front of Slipway whose forwarded fields are believed
 * @param mail           the SMTP server for password-reset mail; off without one
 * @param backups        scheduled backups: where, how often, how many are kept; off without a folder
 * @param edge           whether the apps listener is a separate edge process
 * @param disk           the space kept free on the data dir's disk
 */
public record ServerConfig(
        Path dataDir,
        ListenerSettings listeners,
        StoreSettings store,
        DatabaseAdminSettings databaseAdmins,
        DeploymentSettings deployments,
        IsolationSettings isolation,
        WebhookSettings webhooks,
        BuildSettings build,
        RuntimeSettings runtime,
        DomainSettings domains,
        TlsSettings tls,
        ImageSettings images,
        KubernetesSettings kubernetes,
        ClientLimits clientLimits,
        TrustedProxies trustedProxies,
        MailSettings mail,
        BackupSettings backups,
        EdgeSettings edge,
        DiskSettings disk) {

    public ServerConfig {
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(listeners, "listeners");
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(deployments, "deployments");
        Objects.requireNonNull(domains, "domains");
        databaseAdmins = databaseAdmins == null ? new DatabaseAdminSettings(null, null) : databaseAdmins;
        isolation = isolation == null
                ? new IsolationSettings(IsolationMode.AUTO, IsolationSettings.DEFAULT_WARM_NETWORKS, null, null) : isolation;
        images = images == null ? ImageSettings.OFF : images;
        kubernetes = kubernetes == null ? KubernetesSettings.LOCAL : kubernetes;
        clientLimits = clientLimits == null ? ClientLimits.DEFAULTS : clientLimits;
        trustedProxies = trustedProxies == null ? TrustedProxies.NONE : trustedProxies;
        mail = mail == null ? MailSettings.OFF : mail;
        backups = backups == null ? BackupSettings.OFF : backups;
        edge = edge == null ? EdgeSettings.INLINE : edge;
        disk = disk == null ? DiskSettings.DEFAULTS : disk;
    }

    /** The embedded defaults: loopback, ports 8080 and 8081, H2 in the data dir, a default account on the first start. */
    public static Builder builder(Path dataDir) {
        return new Builder(dataDir);
    }

    /** The data dir: {@code --data-dir} when given ({@code flag}, may be null), else {@code SLIPWAY_DATA_DIR}, else the default. */
    public static Path dataDir(Path flag, Env env) {
        return flag != null ? flag : Path.of(env.text(StoreSettings.DATA_DIR, StoreSettings.DEFAULT_DATA_DIR));
    }

    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Never shows the secret key or the admin URLs (they may carry passwords). */
    @Override
    public String toString() {
        return "ServerConfig[host=" + listeners.host() + ", apiPort=" + listeners.apiPort() + ", appsPort=" + listeners.appsPort()
                + ", dataDir=" + dataDir + ", store=" + (store.databaseUrl() == null ? "h2" : "external")
                + ", appsDomain=" + listeners.appsDomain() + ", regions=" + deployments.regions()
                + ", secretKey=" + (store.secretKey() == null ? "key file" : "****")
                + ", postgresAdmin=" + (databaseAdmins.postgresUrl() == null ? "unset" : "****")
                + ", mysqlAdmin=" + (databaseAdmins.mysqlUrl() == null ? "unset" : "****")
                + ", appsHttpsPort=" + (tls.httpsPort() == null ? "off" : tls.httpsPort()) + "]";
    }

    public static final class Builder {
        private String host = "127.0.0.1";
        private int apiPort = 8080;
        private int appsPort = 8081;
        private final Path dataDir;
        private String databaseUrl;
        private int databasePoolSize = 10;
        private String appsDomain = "localhost";
        private String publicUrl;
        private List<String> regions = List.of("us-east-1");
        private String secretKey;
        private boolean createDefaultAccount = true;
        private long uploadLimitBytes = DeploymentSettings.DEFAULT_UPLOAD_LIMIT;
        private GitHosts gitHosts = GitHosts.defaults();
        private int buildSlots = 2;
        private String postgresAdminUrl;
        private String mysqlAdminUrl;
        private Integer sandboxPort;
        private WebhookSettings webhooks = WebhookSettings.DEFAULTS;
        private IsolationMode isolation = IsolationMode.AUTO;
        private BuildSettings build;
        private RuntimeSettings runtime;
        private int warmNetworks = IsolationSettings.DEFAULT_WARM_NETWORKS;
        private DomainSettings domains = DomainSettings.DEFAULTS;
        private TlsSettings tls = TlsSettings.OFF;
        private Path wildcardCert;
        private Path wildcardKey;
        private ImageSettings images = ImageSettings.OFF;
        private KubernetesSettings kubernetes = KubernetesSettings.LOCAL;
        private EgressAllow egressAllow = EgressAllow.NONE;
        private SandboxSettings sandbox = SandboxSettings.DEFAULTS;
        private ClientLimits clientLimits = ClientLimits.DEFAULTS;
        private TrustedProxies trustedProxies = TrustedProxies.NONE;
        private MailSettings mail = MailSettings.OFF;
        private BackupSettings backups = BackupSettings.OFF;
        private EdgeSettings edge = EdgeSettings.INLINE;
        private DiskSettings disk = DiskSettings.DEFAULTS;

        private Builder(Path dataDir) {
            this.dataDir = dataDir;
        }

        private Builder(ServerConfig c) {
            this(c.dataDir);
            host = c.listeners.host(); apiPort = c.listeners.apiPort(); appsPort = c.listeners.appsPort();
            sandboxPort = c.listeners.sandboxPort(); appsDomain = c.listeners.appsDomain(); publicUrl = c.listeners.publicUrl();
            databaseUrl = c.store.databaseUrl(); databasePoolSize = c.store.poolSize(); secretKey = c.store.secretKey();
            createDefaultAccount = c.store.createDefaultAccount();
            postgresAdminUrl = c.databaseAdmins.postgresUrl(); mysqlAdminUrl = c.databaseAdmins.mysqlUrl();
            regions = c.deployments.regions(); uploadLimitBytes = c.deployments.uploadLimitBytes();
            gitHosts = c.deployments.gitHosts(); buildSlots = c.deployments.buildSlots();
            isolation = c.isolation.mode(); warmNetworks = c.isolation.warmNetworks(); sandbox = c.isolation.sandbox();
            egressAllow = c.isolation.egressAllow();
            webhooks = c.webhooks; build = c.build; runtime = c.runtime; domains = c.domains; tls(c.tls); images = c.images;
            kubernetes = c.kubernetes; clientLimits = c.clientLimits; trustedProxies = c.trustedProxies; mail = c.mail;
            backups = c.backups;
            edge = c.edge;
            disk = c.disk;
        }

        /** {@link #environment(Env)} of these variables. */
        public Builder environment(Map<String, String> env) {
            return environment(Env.of(env));
        }

        /**
         * Every setting of the environment but the data dir (the builder's own): those of the {@code server}
         * command's flags, which it sets after this, and those without one. An unset or blank variable gives the
         * default, or for a flag's setting what the builder has. A bad value is an {@link IllegalArgumentException}
         * that names the variable.
         */
        public Builder environment(Env env) {
            host = env.text(ListenerSettings.HOST, host);
            apiPort = env.integer(ListenerSettings.API_PORT, 0, 65535, apiPort);
            appsPort = env.integer(ListenerSettings.APPS_PORT, 0, 65535, appsPort);
            if (env.isSet(ListenerSettings.SANDBOX_PORT)) sandboxPort = env.integer(ListenerSettings.SANDBOX_PORT, 0, 65535, 0);
            appsDomain = env.text(ListenerSettings.APPS_DOMAIN, appsDomain);
            publicUrl = env.text(ListenerSettings.PUBLIC_URL, publicUrl);
            databaseUrl = env.text(StoreSettings.DATABASE_URL, databaseUrl);
            databasePoolSize = env.integer(StoreSettings.POOL_SIZE, 1, Integer.MAX_VALUE, databasePoolSize);
            secretKey = env.text(StoreSettings.SECRET_KEY, secretKey);
            postgresAdminUrl = env.text(DatabaseAdminSettings.POSTGRES_URL, postgresAdminUrl);
            mysqlAdminUrl = env.text(DatabaseAdminSettings.MYSQL_URL, mysqlAdminUrl);
            regions = env.list(DeploymentSettings.REGIONS, regions);
            uploadLimitBytes = env.number(DeploymentSettings.UPLOAD_LIMIT, 1, Long.MAX_VALUE, uploadLimitBytes);
            gitHosts = env.text(GitHosts.GIT_HOSTS).map(gitHosts::withHttps).orElse(gitHosts);
            gitHosts = env.text(GitHosts.GIT_SSH_HOSTS).map(gitHosts::withSsh).orElse(gitHosts);
            gitHosts = env.text(GitHosts.GIT_APIS).map(gitHosts::withApis).orElse(gitHosts);
            buildSlots = env.integer(DeploymentSettings.BUILD_SLOTS, 1, 64, buildSlots);
            isolation = env.parsed(IsolationSettings.ISOLATION, "sandbox, none or auto", IsolationMode::parse, isolation);
            warmNetworks = env.integer(IsolationSettings.WARM_NETWORKS, 0, 16, IsolationSettings.DEFAULT_WARM_NETWORKS);
            sandbox = SandboxSettings.fromEnv(env);
            egressAllow = EgressAllow.fromEnv(env);
            webhooks = WebhookSettings.fromEnv(webhooks, env);
            build = BuildSettings.fromEnv(dataDir, env);
            runtime = RuntimeSettings.fromEnv(env, regions);
            domains = DomainSettings.fromEnv(env);
            tls = TlsSettings.fromEnv(tls, env);
            wildcardCert = env.text(TlsSettings.WILDCARD_CERT).map(Path::of).orElse(wildcardCert);
            wildcardKey = env.text(TlsSettings.WILDCARD_KEY).map(Path::of).orElse(wildcardKey);
            images = ImageSettings.fromEnv(env);
            kubernetes = KubernetesSettings.fromEnv(env);
            clientLimits = ClientLimits.fromEnv(env);
            trustedProxies = TrustedProxies.fromEnv(env);
            mail = MailSettings.fromEnv(env);
            backups = BackupSettings.fromEnv(env);
            edge = EdgeSettings.fromEnv(env);
            disk = DiskSettings.fromEnv(env);
            return this;
        }

        public Builder host(String v) { host = v; return this; }
        public Builder ports(int api, int apps) { apiPort = api; appsPort = apps; return this; }
        public Builder apiPort(int v) { apiPort = v; return this; }
        public Builder appsPort(int v) { appsPort = v; return this; }
        /** Null: the embedded H2 store in the data dir. */
        public Builder databaseUrl(String v) { databaseUrl = v == null || v.isBlank() ? null : v; return this; }
        public Builder databasePoolSize(int v) { databasePoolSize = v; return this; }
        public Builder appsDomain(String v) { appsDomain = v; return this; }
        public Builder publicUrl(String v) { publicUrl = v; return this; }
        public Builder regions(List<String> v) { regions = v; return this; }
        /** Null: a key file in the data dir. */
        public Builder secretKey(String v) { secretKey = v; return this; }
        public Builder createDefaultAccount(boolean v) { createDefaultAccount = v; return this; }
        public Builder uploadLimit(long bytes) { uploadLimitBytes = bytes; return this; }
        public Builder gitHosts(GitHosts v) { gitHosts = v; return this; }
        /** {@code kind=url,…} over the default clone bases, keeping the SSH bases. */
        public Builder gitHosts(String spec) { gitHosts = gitHosts.withHttps(spec); return this; }
        /** {@code kind=ssh://user@host[:port],…} over the default SSH bases, keeping the clone bases. */
        public Builder gitSshHosts(String spec) { gitHosts = gitHosts.withSsh(spec); return this; }
        /** {@code kind=url,…} over the default REST API bases (commit statuses), keeping the clone bases. */
        public Builder gitApis(String spec) { gitHosts = gitHosts.withApis(spec); return this; }
        public Builder buildSlots(int v) { buildSlots = v; return this; }
        /** Either may be null: that provider is not configured. */
        public Builder databaseAdmins(String postgres, String mysql) {
            postgresAdminUrl = postgres;
            mysqlAdminUrl = mysql;
            return this;
        }
        public Builder postgresAdminUrl(String v) { postgresAdminUrl = v; return this; }
        public Builder mysqlAdminUrl(String v) { mysqlAdminUrl = v; return this; }
        /** The sandbox on its own port (0: any free one) instead of under the API listener's /sandbox. */
        public Builder sandboxPort(Integer v) { sandboxPort = v; return this; }
        public Builder webhooks(WebhookSettings v) { webhooks = v; return this; }
        /** Webhooks and database connect URLs may target loopback, private and link-local addresses. */
        public Builder allowPrivateTargets(boolean v) { webhooks = webhooks.withAllowPrivate(v); return this; }
        public Builder isolation(IsolationMode v) { isolation = v; return this; }
        public Builder build(BuildSettings v) { build = v; return this; }
        /** Builds install their npm packages from this registry, and toolchains come from it ({@code SLIPWAY_NPM_REGISTRY}). */
        public Builder npmRegistry(URI v) {
            build = (build != null ? build : BuildSettings.defaults(dataDir)).withNpmRegistry(v);
            return this;
        }
        public Builder runtime(RuntimeSettings v) { runtime = v; return this; }
        public Builder warmNetworks(int v) { warmNetworks = v; return this; }
        public Builder domains(DomainSettings v) { domains = v; return this; }
        /** {@code --domain-verification}: true (dns) needs a TXT record before a custom domain is served; false (off) does not. */
        public Builder domainProof(boolean v) { domains = domains.withProof(v); return this; }
        public Builder tls(TlsSettings v) {
            tls = v;
            wildcardCert = v == null ? null : v.wildcardCert();
            wildcardKey = v == null ? null : v.wildcardKey();
            return this;
        }
        public Builder images(ImageSettings v) { images = v; return this; }
        /** {@code --image-registry}: push every build as an OCI image there (host[:port][/path]); null keeps the environment's. */
        public Builder imageRegistry(String v) { if (v != null) images = images.withRegistry(v); return this; }
        public Builder kubernetes(KubernetesSettings v) { kubernetes = v; return this; }
        public Builder egressAllow(EgressAllow v) { egressAllow = v; return this; }
        public Builder sandbox(SandboxSettings v) { sandbox = v; return this; }
        public Builder clientLimits(ClientLimits v) { clientLimits = v; return this; }
        public Builder trustedProxies(TrustedProxies v) { trustedProxies = v; return this; }
        public Builder mail(MailSettings v) { mail = v; return this; }
        public Builder backups(BackupSettings v) { backups = v; return this; }
        public Builder edge(EdgeSettings v) { edge = v; return this; }
        public Builder disk(DiskSettings v) { disk = v; return this; }
        /** {@code local} or {@code kubernetes}; null keeps the environment's. */
        public Builder runtimeKind(String v) {
            if (v != null) kubernetes = kubernetes.withEnabled(KubernetesSettings.parseRuntime(v));
            return this;
        }
        public Builder kubeconfig(String v) { if (v != null && !v.isBlank()) kubernetes = kubernetes.withKubeconfig(v); return this; }
        /** The apps HTTPS listener's port (0: a free one); null: no HTTPS. */
        public Builder appsHttpsPort(Integer v) { tls = tls.withHttpsPort(v); return this; }
        /** The operator's PEM certificate and key for {@code *.<apps domain>}; both null: none. */
        public Builder appsTlsCertificate(Path cert, Path key) { wildcardCert = cert; wildcardKey = key; return this; }
        public Builder appsTlsCert(Path v) { wildcardCert = v; return this; }
        public Builder appsTlsKey(Path v) { wildcardKey = v; return this; }
        /** How long a starting app has to answer HTTP. */
        public Builder healthTimeout(Duration v) { runtime = runtime().withHealthTimeout(v); return this; }

        /** Restart delays after a crash, and how long an app must stay up for its count of crashes in a row to end. */
        public Builder backoff(Duration min, Duration max, Duration stable) { runtime = runtime().withBackoff(min, max, stable); return this; }

        private RuntimeSettings runtime() {
            return runtime != null ? runtime.withRegions(regions) : RuntimeSettings.defaults(regions);
        }

        public ServerConfig build() {
            return new ServerConfig(dataDir,
                    new ListenerSettings(host, apiPort, appsPort, sandboxPort, appsDomain, publicUrl),
                    new StoreSettings(databaseUrl, databasePoolSize, secretKey, createDefaultAccount),
                    new DatabaseAdminSettings(postgresAdminUrl, mysqlAdminUrl),
                    new DeploymentSettings(regions, uploadLimitBytes, gitHosts, buildSlots),
                    new IsolationSettings(isolation, warmNetworks, sandbox, egressAllow),
                    webhooks == null ? WebhookSettings.DEFAULTS : webhooks,
                    build != null ? build : BuildSettings.defaults(dataDir), runtime(),
                    domains == null ? DomainSettings.DEFAULTS : domains,
                    (tls == null ? TlsSettings.OFF : tls).withWildcard(wildcardCert, wildcardKey), images,
                    kubernetes, clientLimits, trustedProxies, mail, backups, edge, disk);
        }
    }
}
