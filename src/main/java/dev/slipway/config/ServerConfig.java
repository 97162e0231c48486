package dev.slipway.config;

import dev.slipway.isolation.IsolationMode;
import dev.slipway.source.GitHosts;
import dev.slipway.webhooks.WebhookSettings;

import java.nio.file.Path;
import java.util.List;

/**
 * Everything a server needs to start. Built by the {@code server} command from flags and
 * environment variables (flags win), or by tests directly.
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
        IsolationMode isolation) {

    public ServerConfig {
        if (webhooks == null) webhooks = WebhookSettings.DEFAULTS;
        if (isolation == null) isolation = IsolationMode.AUTO;
    }

    /** How apps and builds are confined: {@code --isolation}. */
    public ServerConfig withIsolation(IsolationMode mode) {
        return new ServerConfig(host, apiPort, appsPort, dataDir, databaseUrl, databasePoolSize, appsDomain, publicUrl,
                regions, secretKey, createDefaultAccount, uploadLimitBytes, gitHosts, buildSlots, postgresAdminUrl,
                mysqlAdminUrl, sandboxPort, webhooks, mode);
    }

    public ServerConfig(String host, int apiPort, int appsPort, Path dataDir, String databaseUrl, int databasePoolSize,
                        String appsDomain, String publicUrl, List<String> regions, String secretKey,
                        boolean createDefaultAccount, long uploadLimitBytes, GitHosts gitHosts, int buildSlots,
                        String postgresAdminUrl, String mysqlAdminUrl, Integer sandboxPort) {
        this(host, apiPort, appsPort, dataDir, databaseUrl, databasePoolSize, appsDomain, publicUrl, regions, secretKey,
                createDefaultAccount, uploadLimitBytes, gitHosts, buildSlots, postgresAdminUrl, mysqlAdminUrl, sandboxPort,
                WebhookSettings.DEFAULTS, IsolationMode.AUTO);
    }

    public static final long DEFAULT_UPLOAD_LIMIT = 100L * 1024 * 1024;

    /** Without database providers. */
    public ServerConfig(String host, int apiPort, int appsPort, Path dataDir, String databaseUrl, int databasePoolSize,
                        String appsDomain, String publicUrl, List<String> regions, String secretKey,
                        boolean createDefaultAccount, long uploadLimitBytes, GitHosts gitHosts, int buildSlots) {
        this(host, apiPort, appsPort, dataDir, databaseUrl, databasePoolSize, appsDomain, publicUrl, regions, secretKey,
                createDefaultAccount, uploadLimitBytes, gitHosts, buildSlots, null, null, null);
    }

    public ServerConfig(String host, int apiPort, int appsPort, Path dataDir, String databaseUrl, int databasePoolSize,
                        String appsDomain, String publicUrl, List<String> regions, String secretKey,
                        boolean createDefaultAccount, long uploadLimitBytes, GitHosts gitHosts, int buildSlots,
                        String postgresAdminUrl, String mysqlAdminUrl) {
        this(host, apiPort, appsPort, dataDir, databaseUrl, databasePoolSize, appsDomain, publicUrl, regions, secretKey,
                createDefaultAccount, uploadLimitBytes, gitHosts, buildSlots, postgresAdminUrl, mysqlAdminUrl, null);
    }

    /** The sandbox on its own port (0: any free one) instead of under the API listener's /sandbox. */
    public ServerConfig withSandboxPort(Integer port) {
        return new ServerConfig(host, apiPort, appsPort, dataDir, databaseUrl, databasePoolSize, appsDomain, publicUrl,
                regions, secretKey, createDefaultAccount, uploadLimitBytes, gitHosts, buildSlots, postgresAdminUrl,
                mysqlAdminUrl, port, webhooks, isolation);
    }

    public static ServerConfig defaults(Path dataDir) {
        return new ServerConfig("127.0.0.1", 8080, 8081, dataDir, null, 10, "localhost", null,
                List.of("us-east-1"), null, true, DEFAULT_UPLOAD_LIMIT, GitHosts.defaults(), 2);
    }

    /** The admin servers for {@code database.action: create} (either may be null: not configured). */
    public ServerConfig withDatabaseAdmins(String postgres, String mysql) {
        return new ServerConfig(host, apiPort, appsPort, dataDir, databaseUrl, databasePoolSize, appsDomain, publicUrl,
                regions, secretKey, createDefaultAccount, uploadLimitBytes, gitHosts, buildSlots, postgres, mysql, sandboxPort, webhooks, isolation);
    }

    public ServerConfig withPorts(int api, int apps) {
        return new ServerConfig(host, api, apps, dataDir, databaseUrl, databasePoolSize, appsDomain, publicUrl,
                regions, secretKey, createDefaultAccount, uploadLimitBytes, gitHosts, buildSlots, postgresAdminUrl, mysqlAdminUrl, sandboxPort, webhooks, isolation);
    }

    public ServerConfig withDatabaseUrl(String url) {
        return new ServerConfig(host, apiPort, appsPort, dataDir, url, databasePoolSize, appsDomain, publicUrl,
                regions, secretKey, createDefaultAccount, uploadLimitBytes, gitHosts, buildSlots, postgresAdminUrl, mysqlAdminUrl, sandboxPort, webhooks, isolation);
    }

    public ServerConfig withUploadLimit(long bytes) {
        return new ServerConfig(host, apiPort, appsPort, dataDir, databaseUrl, databasePoolSize, appsDomain, publicUrl,
                regions, secretKey, createDefaultAccount, bytes, gitHosts, buildSlots, postgresAdminUrl, mysqlAdminUrl, sandboxPort, webhooks, isolation);
    }

    public ServerConfig withGitHosts(GitHosts hosts) {
        return new ServerConfig(host, apiPort, appsPort, dataDir, databaseUrl, databasePoolSize, appsDomain, publicUrl,
                regions, secretKey, createDefaultAccount, uploadLimitBytes, hosts, buildSlots, postgresAdminUrl, mysqlAdminUrl, sandboxPort, webhooks, isolation);
    }

    public ServerConfig withBuildSlots(int slots) {
        return new ServerConfig(host, apiPort, appsPort, dataDir, databaseUrl, databasePoolSize, appsDomain, publicUrl,
                regions, secretKey, createDefaultAccount, uploadLimitBytes, gitHosts, slots, postgresAdminUrl, mysqlAdminUrl, sandboxPort, webhooks, isolation);
    }

    public ServerConfig withWebhooks(WebhookSettings settings) {
        return new ServerConfig(host, apiPort, appsPort, dataDir, databaseUrl, databasePoolSize, appsDomain, publicUrl,
                regions, secretKey, createDefaultAccount, uploadLimitBytes, gitHosts, buildSlots, postgresAdminUrl,
                mysqlAdminUrl, sandboxPort, settings, isolation);
    }

    /** Never shows the secret key or the admin URLs (they may carry passwords). */
    @Override
    public String toString() {
        return "ServerConfig[host=" + host + ", apiPort=" + apiPort + ", appsPort=" + appsPort + ", dataDir=" + dataDir
                + ", store=" + (databaseUrl == null ? "h2" : "external") + ", appsDomain=" + appsDomain
                + ", regions=" + regions + ", secretKey=" + (secretKey == null ? "key file" : "****")
                + ", postgresAdmin=" + (postgresAdminUrl == null ? "unset" : "****")
                + ", mysqlAdmin=" + (mysqlAdminUrl == null ? "unset" : "****") + "]";
    }
}
