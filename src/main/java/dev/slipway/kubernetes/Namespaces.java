package dev.slipway.kubernetes;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** Where an account's apps go: the one apps namespace, or {@code <prefix>-<account>} made on first use. */
final class Namespaces {
    private final KubernetesClient client;
    private final KubernetesSettings settings;
    private final Set<String> made = ConcurrentHashMap.newKeySet();

    Namespaces(KubernetesClient client, KubernetesSettings settings) {
        this.client = client;
        this.settings = settings;
    }

    String of(String accountId) {
        if (settings.namespaces() == KubernetesSettings.NamespaceMode.INSTALLATION) return settings.namespace();
        String name = settings.namespace() + "-" + Names.dns(accountId);
        if (name.length() > 63) name = name.substring(0, 63).replaceAll("-+$", "");
        return name;
    }

    /** The account's namespace, made (restricted Pod Security) when it is one per account and does not exist yet. */
    String ensure(String accountId) {
        String name = of(accountId);
        if (settings.namespaces() == KubernetesSettings.NamespaceMode.INSTALLATION || made.contains(name)) return name;
        if (client.namespaces().withName(name).get() == null) {
            client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name)
                    .withLabels(Map.of(Names.MANAGED_BY, Names.SLIPWAY, Names.ACCOUNT, accountId,
                            "pod-security.kubernetes.io/enforce", "restricted",
                            "pod-security.kubernetes.io/warn", "restricted"))
                    .endMetadata().build()).create();
        }
        bindRuntime(name);
        made.add(name);
        return name;
    }

    /** What deploy/kubernetes/per-account/rbac.yaml grants the servers in each account's namespace, and only there. */
    static final String APPS_CLUSTER_ROLE = "slipway-runtime-apps";
    static final String BINDING = "slipway-runtime";
    /** The servers' service account, as deploy/kubernetes/serviceaccount.yaml names it, in the servers' namespace. */
    static final String SERVICE_ACCOUNT = "slipway";

    /** Gives the servers' service account the runtime's rules in the new namespace (a RoleBinding, never a cluster-wide one). */
    private void bindRuntime(String namespace) {
        if (client.rbac().roleBindings().inNamespace(namespace).withName(BINDING).get() != null) return;
        client.rbac().roleBindings().resource(new RoleBindingBuilder()
                .withNewMetadata().withName(BINDING).withNamespace(namespace)
                .withLabels(Map.of(Names.MANAGED_BY, Names.SLIPWAY)).endMetadata()
                .withNewRoleRef().withApiGroup("rbac.authorization.k8s.io").withKind("ClusterRole").withName(APPS_CLUSTER_ROLE).endRoleRef()
                .addNewSubject().withKind("ServiceAccount").withName(SERVICE_ACCOUNT).withNamespace(settings.routerNamespace()).endSubject()
                .build()).create();
    }

    boolean perAccount() {
        return settings.namespaces() == KubernetesSettings.NamespaceMode.ACCOUNT;
    }
}
