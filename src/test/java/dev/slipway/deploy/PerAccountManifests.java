package dev.slipway.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.client.utils.Serialization;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * deploy/kubernetes/per-account, for one namespace per account, read into fabric8's typed model, and its rules:
 * the apps' rules only through a ClusterRole that no ClusterRoleBinding grants (the runtime binds it in each
 * account's namespace), a cluster-wide role with exactly the verbs the runtime uses across namespaces ({@code bind}
 * only on that ClusterRole, by name), bound to the servers' service account, and the admission policies that
 * confine the namespaces and bindings it makes, bound with Deny. The CEL of the policies is read, not run.
 */
final class PerAccountManifests {
    static final Path DIR = KubernetesManifests.DIR.resolve("per-account");
    static final String APPS_ROLE = "slipway-runtime-apps";
    static final String CLUSTER_ROLE = "slipway-runtime-namespaces";
    static final Map<String, Set<String>> CLUSTER_RULES = Map.of(
            "/namespaces", Set.of("get", "create"),
            "rbac.authorization.k8s.io/rolebindings", Set.of("get", "create"),
            "rbac.authorization.k8s.io/clusterroles[slipway-runtime-apps]", Set.of("bind"),
            "apps/deployments", Set.of("list"),
            "/services", Set.of("list"));
    static final Set<Class<?>> KINDS = Set.of(ClusterRole.class, ClusterRoleBinding.class,
            ValidatingAdmissionPolicy.class, ValidatingAdmissionPolicyBinding.class);
    static final String SERVERS = "system:serviceaccount:slipway:slipway";
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    final List<HasMetadata> objects = new ArrayList<>();
    final List<String> kustomizationResources = new ArrayList<>();
    private final List<String> problems = new ArrayList<>();

    static PerAccountManifests load(Path dir) {
        PerAccountManifests m = new PerAccountManifests();
        try (Stream<Path> paths = Files.list(dir)) {
            for (Path p : paths.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
                String name = p.getFileName().toString();
                if (name.equals(KubernetesManifests.KUSTOMIZATION)) {
                    YAML.readTree(p.toFile()).path("resources").forEach(r -> m.kustomizationResources.add(r.asText()));
                    continue;
                }
                int index = 0;
                try (var docs = YAML.readerFor(JsonNode.class).<JsonNode>readValues(Files.readString(p))) {
                    while (docs.hasNext()) {
                        JsonNode doc = docs.next();
                        String where = name + "#" + index++;
                        if (doc == null || doc.isNull() || doc.isMissingNode()) continue;
                        Object typed = Serialization.unmarshal(YAML.writeValueAsString(doc));
                        if (!(typed instanceof HasMetadata h) || !KINDS.contains(typed.getClass())
                                || !HasMetadata.getApiVersion(h.getClass()).equals(h.getApiVersion())) {
                            m.problems.add(where + ": " + doc.path("apiVersion").asText() + " " + doc.path("kind").asText()
                                    + " is not a known kind of these manifests");
                            continue;
                        }
                        KubernetesManifests.unknownFields(typed, where + ":" + h.getKind(), m.problems);
                        m.objects.add(h);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return m;
    }

    <T> List<T> all(Class<T> kind) {
        return objects.stream().filter(kind::isInstance).map(kind::cast).toList();
    }

    List<String> problems() {
        List<String> p = new ArrayList<>(problems);
        if (!kustomizationResources.containsAll(List.of("../", "rbac.yaml", "policy.yaml"))) {
            p.add("kustomization.yaml lists " + kustomizationResources + ", not ../, rbac.yaml and policy.yaml");
        }
        Map<String, Map<String, Set<String>>> roles = new TreeMap<>();
        for (ClusterRole r : all(ClusterRole.class)) roles.put(r.getMetadata().getName(), rules(r, p));
        Map<String, Set<String>> apps = new TreeMap<>();
        KubernetesManifests.RUNTIME_RULES.forEach((k, v) -> apps.put(k, new TreeSet<>(v)));
        if (!apps.equals(roles.get(APPS_ROLE))) p.add("ClusterRole " + APPS_ROLE + " grants " + roles.get(APPS_ROLE)
                + ", expected exactly the Role's " + apps);
        Map<String, Set<String>> cluster = new TreeMap<>();
        CLUSTER_RULES.forEach((k, v) -> cluster.put(k, new TreeSet<>(v)));
        if (!cluster.equals(roles.get(CLUSTER_ROLE))) p.add("ClusterRole " + CLUSTER_ROLE + " grants " + roles.get(CLUSTER_ROLE)
                + ", expected exactly " + cluster);
        if (!roles.keySet().equals(Set.of(APPS_ROLE, CLUSTER_ROLE))) p.add("ClusterRoles " + roles.keySet() + ", expected "
                + APPS_ROLE + " and " + CLUSTER_ROLE);
        List<ClusterRoleBinding> bindings = all(ClusterRoleBinding.class);
        if (bindings.size() != 1) p.add("expected one ClusterRoleBinding, found " + bindings.size());
        for (ClusterRoleBinding b : bindings) {
            String ref = b.getRoleRef().getKind() + " " + b.getRoleRef().getName();
            if (!ref.equals("ClusterRole " + CLUSTER_ROLE)) {
                p.add("ClusterRoleBinding " + b.getMetadata().getName() + " binds " + ref + " in every namespace: only "
                        + CLUSTER_ROLE + " may be bound cluster-wide");
            }
            for (var s : b.getSubjects()) {
                if (!("system:serviceaccount:" + s.getNamespace() + ":" + s.getName()).equals(SERVERS) || !"ServiceAccount".equals(s.getKind())) {
                    p.add("ClusterRoleBinding " + b.getMetadata().getName() + ": subject " + s.getKind() + " " + s.getNamespace()
                            + "/" + s.getName() + " is not the servers' service account");
                }
            }
        }
        policies(p);
        return p;
    }

    private static Map<String, Set<String>> rules(ClusterRole role, List<String> p) {
        Map<String, Set<String>> granted = new TreeMap<>();
        String name = role.getMetadata().getName();
        if (role.getAggregationRule() != null) p.add("ClusterRole " + name + ": an aggregation rule grants what other roles do");
        for (PolicyRule rule : role.getRules()) {
            boolean named = rule.getResourceNames() != null && !rule.getResourceNames().isEmpty();
            if (rule.getNonResourceURLs() != null && !rule.getNonResourceURLs().isEmpty()) {
                p.add("ClusterRole " + name + ": non-resource URLs " + rule.getNonResourceURLs());
            }
            for (String group : rule.getApiGroups()) {
                for (String resource : rule.getResources()) {
                    for (String verb : rule.getVerbs()) {
                        boolean bindByName = verb.equals("bind") && named && rule.getResourceNames().equals(List.of(APPS_ROLE))
                                && group.equals("rbac.authorization.k8s.io") && resource.equals("clusterroles");
                        if (group.equals("*") || resource.equals("*")
                                || (KubernetesManifests.FORBIDDEN_VERBS.contains(verb) && !bindByName)) {
                            p.add("ClusterRole " + name + ": " + verb + " on " + group + "/" + resource
                                    + (named ? rule.getResourceNames() : "") + " is never granted");
                        }
                        String key = group + "/" + resource + (named ? rule.getResourceNames() : "");
                        granted.computeIfAbsent(key, k -> new TreeSet<>()).add(verb);
                    }
                }
            }
        }
        return granted;
    }

    /** Each policy matches the servers' requests on its resource, and is bound with Deny. */
    private void policies(List<String> p) {
        Map<String, String> expected = Map.of("slipway-runtime-namespaces", "/namespaces",
                "slipway-runtime-rolebindings", "rbac.authorization.k8s.io/rolebindings");
        Map<String, ValidatingAdmissionPolicy> byName = new TreeMap<>();
        for (ValidatingAdmissionPolicy v : all(ValidatingAdmissionPolicy.class)) byName.put(v.getMetadata().getName(), v);
        expected.forEach((name, resource) -> {
            ValidatingAdmissionPolicy v = byName.get(name);
            if (v == null) {
                p.add("no ValidatingAdmissionPolicy " + name + " confines what the servers create on " + resource);
                return;
            }
            var spec = v.getSpec();
            if (!"Fail".equals(spec.getFailurePolicy())) p.add("policy " + name + ": failurePolicy must be Fail");
            boolean matches = spec.getMatchConstraints() != null && spec.getMatchConstraints().getResourceRules().stream()
                    .anyMatch(r -> r.getOperations().contains("CREATE") && r.getApiGroups().stream().anyMatch(g ->
                            r.getResources().stream().anyMatch(res -> (g + "/" + res).equals(resource))));
            if (!matches) p.add("policy " + name + ": does not match CREATE of " + resource);
            boolean servers = spec.getMatchConditions() != null && spec.getMatchConditions().stream()
                    .anyMatch(c -> c.getExpression().contains("'" + SERVERS + "'"));
            if (!servers) p.add("policy " + name + ": does not match the servers' service account " + SERVERS);
            if (spec.getValidations() == null || spec.getValidations().isEmpty()) p.add("policy " + name + ": no validations");
            boolean bound = all(ValidatingAdmissionPolicyBinding.class).stream().anyMatch(b -> name.equals(b.getSpec().getPolicyName())
                    && b.getSpec().getValidationActions() != null && b.getSpec().getValidationActions().contains("Deny")
                    && b.getSpec().getMatchResources() == null);
            if (!bound) p.add("policy " + name + ": no binding denies what it refuses (validationActions Deny, every namespace)");
        });
        String rolebindings = byName.containsKey("slipway-runtime-rolebindings")
                ? Serialization.asYaml(byName.get("slipway-runtime-rolebindings").getSpec().getValidations()) : "";
        for (String must : List.of("slipway-apps-", "'" + APPS_ROLE + "'", "s.kind == 'ServiceAccount'")) {
            if (!rolebindings.contains(must)) p.add("policy slipway-runtime-rolebindings: its validations do not check " + must);
        }
    }
}
