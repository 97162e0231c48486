package dev.slipway.kubernetes;

import dev.slipway.core.Env;
import dev.slipway.core.Setting;

import java.util.List;
import java.util.Locale;
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
    public static final Setting RUNTIME = Setting.flag("--runtime", "SLIPWAY_RUNTIME", "`local`",
            "`local`: apps are processes of this server (in its sandbox). `kubernetes`: each deployment is a Deployment of "
                    + "its image in a cluster; needs `--image-registry` ([The Kubernetes runtime](#the-kubernetes-runtime))");
    public static final Setting KUBECONFIG = Setting.flag("--kubeconfig", "SLIPWAY_KUBECONFIG",
            "the in-cluster service account, else `~/.kube/config`",
            "with `--runtime=kubernetes`: the cluster to run apps in; the server does not start while other users may "
                    + "read it (`chmod 600 <file>`)");
    public static final Setting NAMESPACES = Setting.env("SLIPWAY_KUBERNETES_NAMESPACES", "`installation`",
            "one namespace for all apps or one per account");
    public static final Setting NAMESPACE = Setting.env("SLIPWAY_KUBERNETES_NAMESPACE", "`slipway-apps`", "its name (or prefix)");
    public static final Setting ROUTER_NAMESPACE = Setting.env("SLIPWAY_KUBERNETES_ROUTER_NAMESPACE", "`slipway`",
            "the servers' namespace (an app admits ingress only from there)");
    public static final Setting CLUSTER_CIDRS = Setting.env("SLIPWAY_KUBERNETES_CLUSTER_CIDRS", "the private ranges",
            "the cluster's ranges, closed to apps' egress but DNS and their database");
    public static final KubernetesSettings LOCAL = new KubernetesSettings(false, null, NamespaceMode.INSTALLATION,
            "slipway-apps", "slipway", DEFAULT_CLUSTER_CIDRS);

    public KubernetesSettings {
        if (namespaces == null) namespaces = NamespaceMode.INSTALLATION;
        if (namespace == null || !DNS_LABEL.matcher(namespace).matches()) {
            throw new IllegalArgumentException(NAMESPACE.variable() + " must be a DNS label of at most 40 characters, got '" + namespace + "'");
        }
        if (routerNamespace == null || !DNS_LABEL.matcher(routerNamespace).matches()) {
            throw new IllegalArgumentException(ROUTER_NAMESPACE.variable() + " must be a DNS label, got '" + routerNamespace + "'");
        }
        clusterCidrs = List.copyOf(clusterCidrs);
        for (String c : clusterCidrs) {
            if (!CIDR.matcher(c).matches()) throw new IllegalArgumentException(CLUSTER_CIDRS.variable() + ": '" + c + "' is not a CIDR");
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

    /** The runtime and the cluster's settings from the environment; a bad value names its variable. */
    public static KubernetesSettings fromEnv(Env env) {
        NamespaceMode mode = env.parsed(NAMESPACES, "installation or account",
                v -> NamespaceMode.valueOf(v.toUpperCase(Locale.ROOT)), NamespaceMode.INSTALLATION);
        return new KubernetesSettings(env.parsed(RUNTIME, "local or kubernetes", KubernetesSettings::parseRuntime, false),
                env.text(KUBECONFIG, null), mode, env.text(NAMESPACE, LOCAL.namespace), env.text(ROUTER_NAMESPACE, LOCAL.routerNamespace),
                env.list(CLUSTER_CIDRS, DEFAULT_CLUSTER_CIDRS));
    }

    public KubernetesSettings withEnabled(boolean v) {
        return new KubernetesSettings(v, kubeconfig, namespaces, namespace, routerNamespace, clusterCidrs);
    }

    public KubernetesSettings withKubeconfig(String v) {
        return new KubernetesSettings(enabled, v, namespaces, namespace, routerNamespace, clusterCidrs);
    }
}
