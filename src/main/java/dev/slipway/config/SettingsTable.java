package dev.slipway.config;

import dev.slipway.backup.BackupSettings;
import dev.slipway.disk.DiskSettings;
import dev.slipway.build.BuildSettings;
import dev.slipway.core.Setting;
import dev.slipway.domains.DomainSettings;
import dev.slipway.images.ImageSettings;
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

import java.util.List;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Every setting of the server, in the order of the configuration table in {@code docs/operations.md}, and that table
 * in markdown (docs/operations.md holds it between {@link #START} and {@link #END}).
 */
public final class SettingsTable {
    public static final String START = "<!-- settings:start -->";
    public static final String END = "<!-- settings:end -->";

    /**
     * One line of the table: one setting, or a few documented together (no flag), their variables and defaults
     * joined by {@code separator} and their meanings by {@code meaningSeparator}.
     */
    record Row(List<Setting> settings, String separator, String meaningSeparator) {
        String markdown() {
            Setting first = settings.getFirst();
            String flag = settings.size() == 1 && first.flag() != null ? "`" + first.flag() + "`" : "—";
            return "| " + flag + " | " + join(s -> "`" + s.variable() + "`", separator) + " | "
                    + join(Setting::defaultShown, separator) + " | " + join(Setting::meaning, meaningSeparator) + " |";
        }

        private String join(Function<Setting, String> part, String by) {
            return settings.stream().map(part).collect(Collectors.joining(by));
        }
    }

    private static final List<Row> ROWS = List.of(
            one(ListenerSettings.HOST), one(ListenerSettings.API_PORT), one(ListenerSettings.APPS_PORT),
            one(ListenerSettings.APPS_DOMAIN), one(DomainSettings.VERIFICATION), one(DomainSettings.DNS_SERVERS),
            one(DomainSettings.DNS_TIMEOUT), one(DomainSettings.CHECK_INTERVAL),
            one(TlsSettings.HTTPS_PORT), one(TlsSettings.WILDCARD_CERT), one(TlsSettings.WILDCARD_KEY),
            one(TlsSettings.DIRECTORY_URL), one(TlsSettings.EMAIL), one(TlsSettings.CA_PEM), one(TlsSettings.RENEW_BEFORE),
            new Row(List.of(TlsSettings.RETRY_MIN, TlsSettings.RETRY_MAX), " / ", ", "),
            one(TlsSettings.CHECK_INTERVAL), one(TlsSettings.CHALLENGE),
            one(ClientLimits.HEAD_TIMEOUT), one(ClientLimits.BODY_MIN_RATE), one(ClientLimits.PER_CLIENT), one(ClientLimits.TOTAL),
            one(TrustedProxies.PROXIES),
            one(StoreSettings.DATA_DIR), one(StoreSettings.DATABASE_URL), one(StoreSettings.POOL_SIZE),
            one(BackupSettings.DIR), one(BackupSettings.EVERY), one(BackupSettings.KEEP), one(DiskSettings.RESERVE),
            one(ListenerSettings.PUBLIC_URL), one(MailSettings.SMTP_URL), one(MailSettings.FROM), one(DeploymentSettings.REGIONS), one(DeploymentSettings.UPLOAD_LIMIT),
            one(GitHosts.GIT_HOSTS), one(GitHosts.GIT_SSH_HOSTS), one(GitHosts.GIT_APIS), one(ListenerSettings.SANDBOX_PORT), one(DeploymentSettings.BUILD_SLOTS),
            one(BuildSettings.BUILD_TIMEOUT), one(BuildSettings.KEEP_ARTIFACTS), one(BuildSettings.PYTHON),
            one(BuildSettings.NPM_REGISTRY),
            one(BuildSettings.TOOLCHAIN_REGISTRY),
            one(RuntimeSettings.HEALTH_TIMEOUT), one(RuntimeSettings.STOP_GRACE), one(RuntimeSettings.STOP_APPS_WITH_SERVER), one(dev.slipway.edge.EdgeSettings.EDGE), one(RuntimeSettings.RETIRE_AFTER),
            one(DatabaseAdminSettings.POSTGRES_URL), one(DatabaseAdminSettings.MYSQL_URL),
            one(WebhookSettings.ALLOW_PRIVATE), one(WebhookSettings.RETRY_SCHEDULE),
            one(IsolationSettings.ISOLATION), one(SandboxSettings.TOOLS), one(SandboxSettings.TUN_DEVICE), one(SandboxSettings.CELL_NET),
            one(BuildSettings.MEMORY_MB), one(BuildSettings.CACHE_MB), one(EgressAllow.ALLOW), one(IsolationSettings.WARM_NETWORKS),
            one(ImageSettings.REGISTRY), one(KubernetesSettings.RUNTIME), one(KubernetesSettings.KUBECONFIG),
            new Row(List.of(KubernetesSettings.NAMESPACES, KubernetesSettings.NAMESPACE, KubernetesSettings.ROUTER_NAMESPACE,
                    KubernetesSettings.CLUSTER_CIDRS), ", ", "; "),
            one(ImageSettings.BASES), one(ImageSettings.INSECURE), one(ImageSettings.MAX_MB), one(StoreSettings.SECRET_KEY));

    private SettingsTable() {}

    private static Row one(Setting s) {
        return new Row(List.of(s), "", "");
    }

    /** Every setting, in the table's order. */
    public static List<Setting> settings() {
        return ROWS.stream().flatMap(r -> r.settings().stream()).toList();
    }

    /** The table in markdown, a line per row, ending in a newline. */
    public static String markdown() {
        StringBuilder out = new StringBuilder("| flag | environment | default | meaning |\n|---|---|---|---|\n");
        for (Row row : ROWS) out.append(row.markdown()).append('\n');
        return out.toString();
    }
}
