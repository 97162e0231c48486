package dev.slipway.config;

import dev.slipway.build.BuildConfig;
import dev.slipway.domains.DomainSettings;
import dev.slipway.images.ImageSettings;
import dev.slipway.isolation.IsolationMode;
import dev.slipway.isolation.SandboxSettings;
import dev.slipway.net.ClientLimits;
import dev.slipway.net.EgressAllow;
import dev.slipway.net.TrustedProxies;
import dev.slipway.runtime.RuntimeOptions;
import dev.slipway.source.GitHosts;
import dev.slipway.tls.TlsSettings;
import dev.slipway.webhooks.WebhookSettings;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Everything a server needs to start, made by {@link #builder}. The {@code server} command sets its flags on
 * a builder after {@link Builder#environment}, which is the one place the server's settings are read from
 * the process environment (flags win); tests set what they need on a builder and nothing else.
 *
 * @param databaseUrl JDBC URL of the store; null means the embedded H2 file in the data dir
 * @param secretKey   base64 AES key for secrets at rest; null means a key file in the data dir
 * @param uploadLimitBytes largest zip {@code POST /v1/uploads} accepts
 * @param gitHosts    where each repository host kind is cloned from
 * @param buildSlots  deployments this server builds at once
 * @param sandboxPort port of the plant-store sandbox's own listener; null: served at /sandbox on the API listener
 * @param postgresAdminUrl admin server where {@code database.action: create} makes PostgreSQL databases
 *                    (JDBC or postgres:// URL; null: that provider is not configured)
 * @param mysqlAdminUrl    the same for MySQL/MariaDB
 * @param webhooks    webhook delivery settings (private targets, retry schedule)
 * @param isolation   sandbox apps and builds, or not; AUTO: when the tools are there
 * @param build       the build engine's settings
 * @param runtime     the runtime's timings, with this server's regions
 * @param warmNetworks sandbox networks kept ready per kind, so that a start does not wait for one
 * @param domains     how custom domains are proven (DNS TXT record or off) and which DNS servers are asked
 * @param tls         automatic HTTPS for the apps: the HTTPS port, the wildcard certificate, the ACME CA
 * @param images      where builds are pushed as OCI images; off without a registry
 * @param kubernetes  the runtime: local processes (default), or Kubernetes and how to reach the cluster
 * @param egressAllow private, shared or reserved addresses apps and builds may reach all the same
 * @param sandbox     where the sandbox's tools are looked up, and its tun device
 * @param clientLimits what one client may take of the public listeners: head deadline, body rate, connections
 * @param trustedProxies the proxies in front of Slipway whose forwarded fields are believed
 */
public record ServerConfig(
        String host,
        int apiPort,
        int appsPort,
        Path dataDir,
        String databaseUrl,
        int databasePoolSize,
        String appsDomain,
        String publicUrl,
        List<String> regions,
        String secretKey,
        boolean createDefaultAccount,
        long uploadLimitBytes,
        GitHosts gitHosts,
        int buildSlots,
        String postgresAdminUrl,
        String mysqlAdminUrl,
        Integer sandboxPort,
        WebhookSettings webhooks,
        IsolationMode isolation,
        BuildConfig build,
        RuntimeOptions runtime,
        int warmNetworks,
        DomainSettings domains,
        TlsSettings tls,
        ImageSettings images,
        dev.slipway.kubernetes.KubernetesSettings kubernetes,
        EgressAllow egressAllow,
        SandboxSettings sandbox,
        ClientLimits clientLimits,
        TrustedProxies trustedProxies) {

    public static final long DEFAULT_UPLOAD_LIMIT = 100L * 1024 * 1024;
    public static final int DEFAULT_WARM_NETWORKS = 1;

    public ServerConfig {
        Objects.requireNonNull(dataDir, "dataDir");
        regions = List.copyOf(regions);
        if (buildSlots < 1 || buildSlots > 64) throw new IllegalArgumentException("build slots must be from 1 to 64");
        if (uploadLimitBytes <= 0) throw new IllegalArgumentException("the upload limit must be positive");
        if (warmNetworks < 0 || warmNetworks > 16) throw new IllegalArgumentException("warm networks must be from 0 to 16");
        Objects.requireNonNull(domains, "domains");
        images = images == null ? ImageSettings.OFF : images;
        kubernetes = kubernetes == null ? dev.slipway.kubernetes.KubernetesSettings.LOCAL : kubernetes;
        egressAllow = egressAllow == null ? EgressAllow.NONE : egressAllow;
        sandbox = sandbox == null ? SandboxSettings.DEFAULTS : sandbox;
        clientLimits = clientLimits == null ? ClientLimits.DEFAULTS : clientLimits;
        trustedProxies = trustedProxies == null ? TrustedProxies.NONE : trustedProxies;
    }

    /** The embedded defaults: loopback, ports 8080 and 8081, H2 in the data dir, a default account on the first start. */
    public static Builder builder(Path dataDir) {
        return new Builder(dataDir);
    }

    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Never shows the secret key or the admin URLs (they may carry passwords). */
    @Override
    public String toString() {
        return "ServerConfig[host=" + host + ", apiPort=" + apiPort + ", appsPort=" + appsPort + ", dataDir=" + dataDir
                + ", store=" + (databaseUrl == null ? "h2" : "external") + ", appsDomain=" + appsDomain
                + ", regions=" + regions + ", secretKey=" + (secretKey == null ? "key file" : "****")
                + ", postgresAdmin=" + (postgresAdminUrl == null ? "unset" : "****")
                + ", mysqlAdmin=" + (mysqlAdminUrl == null ? "unset" : "****")
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
        private long uploadLimitBytes = DEFAULT_UPLOAD_LIMIT;
        private GitHosts gitHosts = GitHosts.defaults();
        private int buildSlots = 2;
        private String postgresAdminUrl;
        private String mysqlAdminUrl;
        private Integer sandboxPort;
        private WebhookSettings webhooks = WebhookSettings.DEFAULTS;
        private IsolationMode isolation = IsolationMode.AUTO;
        private BuildConfig build;
        private RuntimeOptions runtime;
        private int warmNetworks = DEFAULT_WARM_NETWORKS;
        private DomainSettings domains = DomainSettings.DEFAULTS;
        private TlsSettings tls = TlsSettings.OFF;
        private ImageSettings images = ImageSettings.OFF;
        private dev.slipway.kubernetes.KubernetesSettings kubernetes = dev.slipway.kubernetes.KubernetesSettings.LOCAL;
        private EgressAllow egressAllow = EgressAllow.NONE;
        private SandboxSettings sandbox = SandboxSettings.DEFAULTS;
        private ClientLimits clientLimits = ClientLimits.DEFAULTS;
        private TrustedProxies trustedProxies = TrustedProxies.NONE;

        private Builder(Path dataDir) {
            this.dataDir = dataDir;
        }

        private Builder(ServerConfig c) {
            this(c.dataDir);
            host = c.host; apiPort = c.apiPort; appsPort = c.appsPort; databaseUrl = c.databaseUrl;
            databasePoolSize = c.databasePoolSize; appsDomain = c.appsDomain; publicUrl = c.publicUrl; regions = c.regions;
            secretKey = c.secretKey; createDefaultAccount = c.createDefaultAccount; uploadLimitBytes = c.uploadLimitBytes;
            gitHosts = c.gitHosts; buildSlots = c.buildSlots; postgresAdminUrl = c.postgresAdminUrl;
            mysqlAdminUrl = c.mysqlAdminUrl; sandboxPort = c.sandboxPort; webhooks = c.webhooks; isolation = c.isolation;
            build = c.build; runtime = c.runtime; warmNetworks = c.warmNetworks; domains = c.domains; tls = c.tls;
            images = c.images;
            kubernetes = c.kubernetes;
            egressAllow = c.egressAllow;
            sandbox = c.sandbox;
            clientLimits = c.clientLimits;
            trustedProxies = c.trustedProxies;
        }

        /**
         * The settings that have no flag: {@code SLIPWAY_SECRET_KEY}, the build settings
         * ({@link BuildConfig#fromEnv}), the runtime timings ({@link RuntimeOptions#fromEnv}), the webhook retry
         * schedule, {@code SLIPWAY_SANDBOX_WARM_NETWORKS}, the custom domain settings ({@link DomainSettings#fromEnv}) and the
         * ACME settings ({@link TlsSettings#fromEnv}) and the image settings ({@link ImageSettings#fromEnv}) and the egress allow-list ({@link EgressAllow#parse}) and the sandbox's tool directories and tun device ({@link SandboxSettings#fromEnv}) and the client limits ({@link ClientLimits#fromEnv}) and the trusted proxies ({@link TrustedProxies#parse}). A bad value is an {@link IllegalArgumentException}
         * that names the variable.
         */
        public Builder environment(Map<String, String> env) {
            String key = env.get("SLIPWAY_SECRET_KEY");
            if (key != null && !key.isBlank()) secretKey = key.strip();
            build = BuildConfig.fromEnv(dataDir, env);
            runtime = RuntimeOptions.fromEnv(env, regions);
            webhooks = new WebhookSettings(webhooks.allowPrivate(), WebhookSettings.retriesFrom(env));
            warmNetworks = warmNetworks(env.get("SLIPWAY_SANDBOX_WARM_NETWORKS"));
            domains = DomainSettings.fromEnv(env);
            tls = TlsSettings.fromEnv(tls, env);
            images = ImageSettings.fromEnv(env);
            kubernetes = dev.slipway.kubernetes.KubernetesSettings.fromEnv(env);
            egressAllow = EgressAllow.parse(env.get(EgressAllow.VARIABLE));
            sandbox = SandboxSettings.fromEnv(env);
            clientLimits = ClientLimits.fromEnv(env);
            trustedProxies = TrustedProxies.parse(env.get(TrustedProxies.VARIABLE));
            return this;
        }

        private static int warmNetworks(String v) {
            if (v == null || v.isBlank()) return DEFAULT_WARM_NETWORKS;
            try {
                int n = Integer.parseInt(v.strip());
                if (n < 0 || n > 16) throw new NumberFormatException();
                return n;
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("SLIPWAY_SANDBOX_WARM_NETWORKS must be a whole number from 0 to 16, got '" + v + "'");
            }
        }

        public Builder host(String v) { host = v; return this; }
        public Builder ports(int api, int apps) { apiPort = api; appsPort = apps; return this; }
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
        public Builder buildSlots(int v) { buildSlots = v; return this; }
        /** Either may be null: that provider is not configured. */
        public Builder databaseAdmins(String postgres, String mysql) {
            postgresAdminUrl = postgres;
            mysqlAdminUrl = mysql;
            return this;
        }
        /** The sandbox on its own port (0: any free one) instead of under the API listener's /sandbox. */
        public Builder sandboxPort(Integer v) { sandboxPort = v; return this; }
        public Builder webhooks(WebhookSettings v) { webhooks = v; return this; }
        /** Webhooks and database connect URLs may target loopback, private and link-local addresses. */
        public Builder allowPrivateTargets(boolean v) { webhooks = webhooks.withAllowPrivate(v); return this; }
        public Builder isolation(IsolationMode v) { isolation = v; return this; }
        public Builder build(BuildConfig v) { build = v; return this; }
        public Builder runtime(RuntimeOptions v) { runtime = v; return this; }
        public Builder warmNetworks(int v) { warmNetworks = v; return this; }
        public Builder domains(DomainSettings v) { domains = v; return this; }
        /** {@code --domain-verification}: true (dns) needs a TXT record before a custom domain is served; false (off) does not. */
        public Builder domainProof(boolean v) { domains = domains.withProof(v); return this; }
        public Builder tls(TlsSettings v) { tls = v; return this; }
        public Builder images(ImageSettings v) { images = v; return this; }
        /** {@code --image-registry}: push every build as an OCI image there (host[:port][/path]); null keeps the environment's. */
        public Builder imageRegistry(String v) { if (v != null) images = images.withRegistry(v); return this; }
        public Builder kubernetes(dev.slipway.kubernetes.KubernetesSettings v) { kubernetes = v; return this; }
        public Builder egressAllow(EgressAllow v) { egressAllow = v; return this; }
        public Builder sandbox(SandboxSettings v) { sandbox = v; return this; }
        public Builder clientLimits(ClientLimits v) { clientLimits = v; return this; }
        public Builder trustedProxies(TrustedProxies v) { trustedProxies = v; return this; }
        /** {@code local} or {@code kubernetes}; null keeps the environment's. */
        public Builder runtimeKind(String v) {
            if (v != null) kubernetes = kubernetes.withEnabled(dev.slipway.kubernetes.KubernetesSettings.parseRuntime(v));
            return this;
        }
        public Builder kubeconfig(String v) { if (v != null && !v.isBlank()) kubernetes = kubernetes.withKubeconfig(v); return this; }
        /** The apps HTTPS listener's port (0: a free one); null: no HTTPS. */
        public Builder appsHttpsPort(Integer v) { tls = tls.withHttpsPort(v); return this; }
        /** The operator's PEM certificate and key for {@code *.<apps domain>}; both null: none. */
        public Builder appsTlsCertificate(Path cert, Path key) { tls = tls.withWildcard(cert, key); return this; }
        /** How long a starting app has to answer HTTP. */
        public Builder healthTimeout(Duration v) { runtime = runtime().withHealthTimeout(v); return this; }

        private RuntimeOptions runtime() {
            return runtime != null ? runtime.withRegions(regions) : RuntimeOptions.defaults(regions);
        }

        public ServerConfig build() {
            return new ServerConfig(host, apiPort, appsPort, dataDir, databaseUrl, databasePoolSize, appsDomain, publicUrl,
                    regions, secretKey, createDefaultAccount, uploadLimitBytes, gitHosts, buildSlots, postgresAdminUrl,
                    mysqlAdminUrl, sandboxPort, webhooks == null ? WebhookSettings.DEFAULTS : webhooks,
                    isolation == null ? IsolationMode.AUTO : isolation,
                    build != null ? build : BuildConfig.defaults(dataDir), runtime(), warmNetworks,
                    domains == null ? DomainSettings.DEFAULTS : domains, tls == null ? TlsSettings.OFF : tls, images,
                    kubernetes, egressAllow, sandbox, clientLimits, trustedProxies);
        }
    }
}
