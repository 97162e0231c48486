package dev.slipway.kubernetes;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Which runtime runs the apps, and for the Kubernetes one how it reaches the cluster and where the apps go.
 *
 * @param enabled         {@code --runtime=kubernetes}; false: the local runtime (the default)
 * @param kubeconfig      a kubeconfig file; null: the in-cluster service account (or fabric8's usual lookup)
 * @param namespaces      one namespace for every app, or one per account
 * @param namespace       the apps' namespace (INSTALLATION), or the prefix of each account's ({@code <prefix>-<account>})
 * @param routerNamespace where the Slipway servers run: the only pods an app's NetworkPolicy admits
 * @param clusterCidrs    the cluster's pod and service ranges (and the metadata range): no egress into them but DNS
 *                        and the app's database where the operator allows it ({@link DatabaseAddress})
 */
public record KubernetesSettings(boolean enabled, String kubeconfig, NamespaceMode namespaces, String namespace,
                                 String routerNamespace, List<String> clusterCidrs) {
    public enum NamespaceMode { INSTALLATION, ACCOUNT }

    // before LOCAL: its constructor uses them
    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,38}[a-z0-9])?");
    private static final Pattern CIDR = Pattern.compile("[0-9]{1,3}(\\.[0-9]{1,3}){3}/[0-9]{1,2}|[0-9a-fA-F:]+/[0-9]{1,3}");
    public static final List<String> DEFAULT_CLUSTER_CIDRS =
            List.of("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "169.254.0.0/16");
    public static final KubernetesSettings LOCAL = new KubernetesSettings(false, null, NamespaceMode.INSTALLATION,
            "slipway-apps", "slipway", DEFAULT_CLUSTER_CIDRS);

    public KubernetesSettings {
        if (namespaces == null) namespaces = NamespaceMode.INSTALLATION;
        if (namespace == null || !DNS_LABEL.matcher(namespace).matches()) {
            throw new IllegalArgumentException("SLIPWAY_KUBERNETES_NAMESPACE must be a DNS label of at most 40 characters, got '" + namespace + "'");
        }
        if (routerNamespace == null || !DNS_LABEL.matcher(routerNamespace).matches()) {
            throw new IllegalArgumentException("SLIPWAY_KUBERNETES_ROUTER_NAMESPACE must be a DNS label, got '" + routerNamespace + "'");
        }
        clusterCidrs = List.copyOf(clusterCidrs);
        for (String c : clusterCidrs) {
            if (!CIDR.matcher(c).matches()) throw new IllegalArgumentException("SLIPWAY_KUBERNETES_CLUSTER_CIDRS: '" + c + "' is not a CIDR");
        }
        if (kubeconfig != null && kubeconfig.isBlank()) kubeconfig = null;
    }

    /** {@code local} or {@code kubernetes} (the {@code --runtime} flag and {@code SLIPWAY_RUNTIME}). */
    public static boolean parseRuntime(String v) {
        String s = v == null ? "local" : v.strip().toLowerCase(Locale.ROOT);
        return switch (s) {
            case "", "local" -> false;
            case "kubernetes" -> true;
            default -> throw new IllegalArgumentException("--runtime must be local or kubernetes, got '" + v + "'");
        };
    }

    /**
     * Reads {@code SLIPWAY_RUNTIME}, {@code SLIPWAY_KUBECONFIG}, {@code SLIPWAY_KUBERNETES_NAMESPACES}
     * ({@code installation|account}), {@code SLIPWAY_KUBERNETES_NAMESPACE}, {@code SLIPWAY_KUBERNETES_ROUTER_NAMESPACE}
     * and {@code SLIPWAY_KUBERNETES_CLUSTER_CIDRS} (comma-separated).
     */
    public static KubernetesSettings fromEnv(Map<String, String> env) {
        String mode = env.getOrDefault("SLIPWAY_KUBERNETES_NAMESPACES", "installation").strip().toLowerCase(Locale.ROOT);
        NamespaceMode m = switch (mode) {
            case "installation" -> NamespaceMode.INSTALLATION;
            case "account" -> NamespaceMode.ACCOUNT;
            default -> throw new IllegalArgumentException("SLIPWAY_KUBERNETES_NAMESPACES must be installation or account, got '" + mode + "'");
        };
        String cidrs = env.get("SLIPWAY_KUBERNETES_CLUSTER_CIDRS");
        List<String> ranges = cidrs == null || cidrs.isBlank() ? DEFAULT_CLUSTER_CIDRS
                : List.of(cidrs.split(",")).stream().map(String::strip).filter(s -> !s.isEmpty()).toList();
        return new KubernetesSettings(parseRuntime(env.get("SLIPWAY_RUNTIME")), env.get("SLIPWAY_KUBECONFIG"), m,
                env.getOrDefault("SLIPWAY_KUBERNETES_NAMESPACE", "slipway-apps").strip(),
                env.getOrDefault("SLIPWAY_KUBERNETES_ROUTER_NAMESPACE", "slipway").strip(), ranges);
    }

    public KubernetesSettings withEnabled(boolean v) {
        return new KubernetesSettings(v, kubeconfig, namespaces, namespace, routerNamespace, clusterCidrs);
    }

    public KubernetesSettings withKubeconfig(String v) {
        return new KubernetesSettings(enabled, v, namespaces, namespace, routerNamespace, clusterCidrs);
    }
}
