package dev.slipway.deploy;

import dev.slipway.testing.TestStore;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * deploy/kubernetes read into fabric8's typed model: known kinds and apiVersions, no unknown fields, env names the
 * server reads, probes on real paths and ports, Secret keys that exist, the runtime's minimal RBAC, Service
 * selectors that select the servers. Each rule is also shown to catch a hostile or careless edit of a copy.
 */
class KubernetesManifestsTest {
    static Set<String> settings;
    Path copy;

    @BeforeAll
    static void readSettings() throws IOException {
        settings = KubernetesManifests.serverSettings(Path.of("docs", "operations.md"), Path.of("src", "main", "java"));
    }

    @AfterEach
    void deleteCopy() {
        if (copy != null) TestStore.deleteTree(copy);
    }

    @Test
    void theRepositorysManifestsKeepEveryRule() {
        KubernetesManifests m = KubernetesManifests.load(KubernetesManifests.DIR);
        assertThat(m.problems(settings)).isEmpty();
        assertThat(m.files).containsOnlyKeys("namespaces.yaml", "serviceaccount.yaml", "rbac.yaml", "service.yaml",
                "deployment.yaml", "secret.example.yaml");
        assertThat(m.all(HasMetadata.class)).extracting(h -> h.getClass().getSimpleName()).containsExactlyInAnyOrder(
                "Namespace", "Namespace", "ServiceAccount", "Role", "RoleBinding", "Service", "Service", "Deployment", "Secret");
        assertThat(m.all(Namespace.class)).extracting(n -> n.getMetadata().getLabels().get("pod-security.kubernetes.io/enforce"))
                .containsExactlyInAnyOrder("privileged", "restricted");
        Role role = m.all(Role.class).getFirst();
        assertThat(role.getMetadata().getNamespace()).isEqualTo("slipway-apps");
        RoleBinding binding = m.all(RoleBinding.class).getFirst();
        ServiceAccount sa = m.all(ServiceAccount.class).getFirst();
        assertThat(binding.getSubjects()).singleElement().satisfies(s -> {
            assertThat(s.getName()).isEqualTo(sa.getMetadata().getName());
            assertThat(s.getNamespace()).isEqualTo("slipway");
        });
        Deployment d = m.all(Deployment.class).getFirst();
        // one until the Kubernetes runtime lands: today an app is served only by the server that built it
        assertThat(d.getSpec().getReplicas()).isEqualTo(1);
        assertThat(m.all(Service.class)).extracting(s -> s.getSpec().getPorts().getFirst().getTargetPort().getStrVal())
                .containsExactlyInAnyOrder("api", "apps");
        Secret secret = m.all(Secret.class).getFirst();
        assertThat(secret.getStringData()).containsOnlyKeys("SLIPWAY_SECRET_KEY", "SLIPWAY_DATABASE_URL");
    }

    @Test
    void theSettingsAreTheReadmesConfigurationTable() {
        assertThat(settings).contains("SLIPWAY_HOST", "SLIPWAY_API_PORT", "SLIPWAY_APPS_PORT", "SLIPWAY_DATA_DIR",
                "SLIPWAY_DATABASE_URL", "SLIPWAY_SECRET_KEY", "SLIPWAY_ISOLATION", "SLIPWAY_PUBLIC_URL", "SLIPWAY_APPS_DOMAIN");
        // the client's and the test harness's names are not server settings
        assertThat(settings).doesNotContain("SLIPWAY_API_KEY", "SLIPWAY_API_URL", "SLIPWAY_TEST_POSTGRES_URL");
    }

    /** A copy of the manifests with one edit, and the problem it must raise. */
    static Stream<Arguments> edits() {
        return Stream.of(
                edit("the apps run unconfined", "deployment.yaml", "value: sandbox", "value: none", "SLIPWAY_ISOLATION is none"),
                edit("the sandbox silently optional", "deployment.yaml", "value: sandbox", "value: auto", "SLIPWAY_ISOLATION is auto"),
                edit("a setting the server does not read", "deployment.yaml", "name: SLIPWAY_BUILD_SLOTS", "name: SLIPWAY_BUILD_SLOTZ",
                        "env SLIPWAY_BUILD_SLOTZ is not a setting the server reads"),
                edit("the sandbox without the powers it needs", "deployment.yaml", "privileged: true", "privileged: false",
                        "the container must be privileged"),
                edit("a typo the model would keep silently", "deployment.yaml", "readinessProbe:", "readinesProbe:", "unknown field(s) [readinesProbe]"),
                edit("readiness on a path the server lacks", "deployment.yaml", "path: /readyz", "path: /ready", "readinessProbe asks /ready"),
                edit("liveness on the apps listener", "deployment.yaml", "path: /healthz\n              port: api\n            periodSeconds: 10",
                        "path: /healthz\n              port: apps\n            periodSeconds: 10", "livenessProbe must ask the port named api"),
                edit("a port name the container lacks", "service.yaml", "targetPort: apps", "targetPort: app", "targetPort app is not a named port"),
                edit("a container port the server does not listen on", "deployment.yaml", "containerPort: 8081", "containerPort: 9091",
                        "port apps is 9091 but the server listens on 8081"),
                edit("a Secret key that does not exist", "deployment.yaml", "key: SLIPWAY_SECRET_KEY", "key: SECRET_KEY",
                        "refers to key SECRET_KEY that Secret slipway lacks"),
                edit("the key as a literal in the Deployment", "deployment.yaml",
                        "- name: SLIPWAY_SECRET_KEY\n              valueFrom:\n                secretKeyRef:\n                  name: slipway\n                  key: SLIPWAY_SECRET_KEY",
                        "- name: SLIPWAY_SECRET_KEY\n              value: c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MTI=",
                        "SLIPWAY_SECRET_KEY must come from a Secret"),
                edit("a real key committed", "secret.example.yaml", "\"REPLACE_ME_with_openssl_rand_base64_32\"",
                        "\"c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MTI=\"", "SLIPWAY_SECRET_KEY holds a value"),
                edit("a Service that selects other pods", "service.yaml", "app.kubernetes.io/component: server\n  ports:\n    - name: http\n      port: 80\n      targetPort: api",
                        "app.kubernetes.io/component: worker\n  ports:\n    - name: http\n      port: 80\n      targetPort: api", "Service slipway-api: selector"),
                edit("service links that shadow the ports", "deployment.yaml", "enableServiceLinks: false", "enableServiceLinks: true",
                        "enableServiceLinks must be false"),
                edit("the token mounted before anything uses it", "deployment.yaml", "      automountServiceAccountToken: false",
                        "      automountServiceAccountToken: true", "automountServiceAccountToken must be false"),
                edit("a wildcard verb", "rbac.yaml", "verbs: [\"get\"]", "verbs: [\"*\"]", "* on /pods/log is never granted"),
                edit("escalate on roles", "rbac.yaml", "resources: [\"pods/log\"]\n    verbs: [\"get\"]",
                        "resources: [\"pods/log\"]\n    verbs: [\"get\"]\n  - apiGroups: [\"rbac.authorization.k8s.io\"]\n    resources: [\"roles\"]\n    verbs: [\"escalate\", \"bind\"]",
                        "escalate on rbac.authorization.k8s.io/roles is never granted"),
                edit("exec into pods", "rbac.yaml", "resources: [\"pods/log\"]", "resources: [\"pods/log\", \"pods/exec\"]", "expected exactly"),
                edit("listing every secret", "rbac.yaml", "verbs: [\"get\", \"create\", \"update\", \"patch\", \"delete\"]",
                        "verbs: [\"get\", \"list\", \"create\", \"update\", \"patch\", \"delete\"]", "expected exactly"),
                edit("a ClusterRole", "rbac.yaml", "kind: Role\nmetadata:", "kind: ClusterRole\nmetadata:", "ClusterRole is not a known kind"),
                edit("a binding to someone else", "rbac.yaml", "    name: slipway\n    namespace: slipway", "    name: default\n    namespace: kube-system",
                        "subject ServiceAccount kube-system/default is not the servers' service account"),
                edit("a wrong apiVersion", "service.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: slipway-apps",
                        "apiVersion: v2\nkind: Service\nmetadata:\n  name: slipway-apps", "is not a known kind"),
                edit("an object in an undeclared namespace", "serviceaccount.yaml", "namespace: slipway", "namespace: default",
                        "is in namespace default, which the manifests do not declare"));
    }

    static Arguments edit(String what, String file, String from, String to, String problem) {
        return Arguments.of(what, file, from, to, problem);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("edits")
    void aHostileOrCarelessEditIsCaught(String what, String file, String from, String to, String problem) throws IOException {
        copy = editedCopy(KubernetesManifests.DIR, file, from, to);
        List<String> problems = KubernetesManifests.load(copy).problems(settings);
        assertThat(problems).as(what).anySatisfy(p -> assertThat(p).contains(problem));
    }

    @Test
    void theSecretExampleIsNeverAppliedByKustomize() throws IOException {
        copy = Files.createTempDirectory("slipway-k8s-");
        try (Stream<Path> files = Files.list(KubernetesManifests.DIR)) {
            for (Path f : files.toList()) Files.copy(f, copy.resolve(f.getFileName()));
        }
        Path k = copy.resolve(KubernetesManifests.KUSTOMIZATION);
        Files.writeString(k, Files.readString(k) + "  - secret.example.yaml\n");
        assertThat(KubernetesManifests.load(copy).problems(settings))
                .anySatisfy(p -> assertThat(p).contains("must not apply secret.example.yaml"));
        Files.writeString(k, Files.readString(k).replace("  - rbac.yaml\n", "").replace("  - secret.example.yaml\n", ""));
        assertThat(KubernetesManifests.load(copy).problems(settings))
                .anySatisfy(p -> assertThat(p).contains("kustomization.yaml lists"));
    }

    @Test
    void thePerAccountRbacKeepsItsRules() {
        PerAccountManifests m = PerAccountManifests.load(PerAccountManifests.DIR);
        assertThat(m.problems()).isEmpty();
        assertThat(m.objects).extracting(h -> h.getKind() + " " + h.getMetadata().getName()).containsExactlyInAnyOrder(
                "ClusterRole slipway-runtime-apps", "ClusterRole slipway-runtime-namespaces",
                "ClusterRoleBinding slipway-runtime-namespaces",
                "ValidatingAdmissionPolicy slipway-runtime-namespaces", "ValidatingAdmissionPolicyBinding slipway-runtime-namespaces",
                "ValidatingAdmissionPolicy slipway-runtime-rolebindings", "ValidatingAdmissionPolicyBinding slipway-runtime-rolebindings");
        // the names the runtime binds (dev.slipway.kubernetes.Namespaces) are the ones shipped
        assertThat(m.objects).anyMatch(h -> h.getMetadata().getName().equals("slipway-runtime-apps"));
    }

    static Stream<Arguments> perAccountEdits() {
        return Stream.of(
                edit("the apps' rules bound in every namespace", "rbac.yaml", "  kind: ClusterRole\n  name: slipway-runtime-namespaces\nsubjects",
                        "  kind: ClusterRole\n  name: slipway-runtime-apps\nsubjects", "binds ClusterRole slipway-runtime-apps in every namespace"),
                edit("bind on any cluster role", "rbac.yaml", "    verbs: [\"bind\"]\n    resourceNames: [\"slipway-runtime-apps\"]\n",
                        "    verbs: [\"bind\"]\n", "bind on rbac.authorization.k8s.io/clusterroles is never granted"),
                edit("deleting namespaces", "rbac.yaml", "    verbs: [\"get\", \"create\"]\n  - apiGroups: [\"rbac",
                        "    verbs: [\"get\", \"create\", \"delete\"]\n  - apiGroups: [\"rbac", "expected exactly"),
                edit("listing secrets across the cluster", "rbac.yaml", "    resources: [\"services\"]\n    verbs: [\"list\"]",
                        "    resources: [\"services\", \"secrets\"]\n    verbs: [\"list\"]", "expected exactly"),
                edit("a policy that only warns", "policy.yaml", "  policyName: slipway-runtime-rolebindings\n  validationActions: [\"Deny\"]",
                        "  policyName: slipway-runtime-rolebindings\n  validationActions: [\"Warn\"]", "no binding denies"),
                edit("a policy for someone else", "policy.yaml", "system:serviceaccount:slipway:slipway'\"\n  validations:\n    - expression: \"namespaceObject",
                        "system:serviceaccount:default:default'\"\n  validations:\n    - expression: \"namespaceObject",
                        "policy slipway-runtime-rolebindings: does not match the servers' service account"),
                edit("bindings of any role", "policy.yaml", "object.roleRef.name == 'slipway-runtime-apps'", "true",
                        "its validations do not check 'slipway-runtime-apps'"),
                edit("a typo the model would keep silently", "policy.yaml", "  failurePolicy: Fail\n  matchConstraints:\n    resourceRules:\n      - apiGroups: [\"\"]",
                        "  failurePolicy: Fail\n  matchConstraint:\n    resourceRules:\n      - apiGroups: [\"\"]", "unknown field(s) [matchConstraint]"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("perAccountEdits")
    void aHostileOrCarelessEditOfThePerAccountRbacIsCaught(String what, String file, String from, String to, String problem) throws IOException {
        copy = editedCopy(PerAccountManifests.DIR, file, from, to);
        assertThat(PerAccountManifests.load(copy).problems()).as(what).anySatisfy(p -> assertThat(p).contains(problem));
    }

    /** A copy of the manifests in {@code dir} with {@code from} replaced by {@code to} in {@code file}. */
    private static Path editedCopy(Path dir, String file, String from, String to) throws IOException {
        Path copy = Files.createTempDirectory("slipway-k8s-");
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.toList()) Files.copy(f, copy.resolve(f.getFileName()));
        }
        Path target = copy.resolve(file);
        String text = Files.readString(target);
        assertThat(text).as("the edit's anchor in " + file).contains(from);
        Files.writeString(target, text.replace(from, to));
        return copy;
    }
}
