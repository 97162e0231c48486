package dev.slipway.kubernetes;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRuleBuilder;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * An app's NetworkPolicy. Ingress: only the Slipway servers' pods (the router), on the app's port.
 * Egress: DNS (to kube-dns), the internet (everything but the cluster's ranges), and the app's own
 * database by address and port, as the platform recorded it ({@link DatabaseAddress}); nothing else in the cluster.
 */
final class AppNetworkPolicy {
    /** The labels of the Slipway servers' pods (deploy/kubernetes/deployment.yaml). */
    static final Map<String, String> ROUTER_PODS =
            Map.of("app.kubernetes.io/name", "slipway", "app.kubernetes.io/component", "server");

    private AppNetworkPolicy() {
    }

    static NetworkPolicy build(String namespace, Map<String, String> labels, String deploymentId, String routerNamespace,
                               List<String> clusterCidrs, List<DatabaseAddress> databases) {
        List<NetworkPolicyEgressRule> egress = new ArrayList<>();
        egress.add(new NetworkPolicyEgressRuleBuilder()
                .addNewTo()
                    .withNewNamespaceSelector().endNamespaceSelector()
                    .withNewPodSelector().addToMatchLabels("k8s-app", "kube-dns").endPodSelector()
                .endTo()
                .addNewPort().withProtocol("UDP").withPort(new IntOrString(53)).endPort()
                .addNewPort().withProtocol("TCP").withPort(new IntOrString(53)).endPort()
                .build());
        egress.add(new NetworkPolicyEgressRuleBuilder()
                .addNewTo().withNewIpBlock().withCidr("0.0.0.0/0").withExcept(clusterCidrs).endIpBlock().endTo()
                .build());
        for (DatabaseAddress db : databases) {
            egress.add(new NetworkPolicyEgressRuleBuilder()
                    .addNewTo().withNewIpBlock().withCidr(db.cidr()).endIpBlock().endTo()
                    .addNewPort().withProtocol("TCP").withPort(new IntOrString(db.port())).endPort()
                    .build());
        }
        return new NetworkPolicyBuilder()
                .withNewMetadata().withName(Names.deployment(deploymentId)).withNamespace(namespace).withLabels(labels).endMetadata()
                .withNewSpec()
                    .withNewPodSelector().withMatchLabels(Names.selector(deploymentId)).endPodSelector()
                    .withPolicyTypes("Ingress", "Egress")
                    .addNewIngress()
                        .addNewFrom()
                            .withNewNamespaceSelector().addToMatchLabels("kubernetes.io/metadata.name", routerNamespace).endNamespaceSelector()
                            .withNewPodSelector().withMatchLabels(ROUTER_PODS).endPodSelector()
                        .endFrom()
                        .addNewPort().withProtocol("TCP").withPort(new IntOrString(Names.APP_PORT)).endPort()
                    .endIngress()
                    .withEgress(egress)
                .endSpec()
                .build();
    }
}
