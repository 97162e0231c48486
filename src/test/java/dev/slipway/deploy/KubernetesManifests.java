package dev.slipway.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.HTTPGetAction;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.client.utils.Serialization;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The manifests under {@code deploy/kubernetes}, read into fabric8's typed Kubernetes model, and the rules they
 * must keep. {@link #problems} names every broken rule, so a test can show both that the repository's manifests
 * keep them and that a hostile edit of them is caught.
 */
final class KubernetesManifests {
    static final Path DIR = Path.of("deploy", "kubernetes");
    static final String KUSTOMIZATION = "kustomization.yaml";
    static final String SECRET_EXAMPLE = "secret.example.yaml";
    static final String PLACEHOLDER = "REPLACE_ME";

    /** What the Kubernetes runtime does to an app's objects: resource → verbs, nothing more. */
    static final Map<String, Set<String>> RUNTIME_RULES = Map.of(
            "apps/deployments", Set.of("get", "list", "watch", "create", "update", "patch", "delete"),
            "/services", Set.of("get", "list", "watch", "create", "update", "patch", "delete"),
            "networking.k8s.io/networkpolicies", Set.of("get", "list", "watch", "create", "update", "patch", "delete"),
            "/secrets", Set.of("get", "create", "update", "patch", "delete"),
            "/persistentvolumeclaims", Set.of("get", "list", "create", "delete"),
            "/pods", Set.of("get", "list", "watch"),
            "/pods/log", Set.of("get"),
            "metrics.k8s.io/pods", Set.of("get", "list"),
            "/events", Set.of("list", "watch"));
    static final Set<String> FORBIDDEN_VERBS = Set.of("*", "escalate", "bind", "impersonate");
    static final Set<Class<? extends HasMetadata>> KINDS = Set.of(
            Namespace.class, ServiceAccount.class, Role.class, RoleBinding.class, Service.class, Deployment.class, Secret.class);

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    /** Each file's objects, in file order; a document that is not one of {@link #KINDS} is a problem, not an object. */
    final Map<String, List<HasMetadata>> files = new TreeMap<>();
    final List<String> kustomizationResources = new ArrayList<>();
    private final List<String> parseProblems = new ArrayList<>();

    static KubernetesManifests load(Path dir) {
        KubernetesManifests m = new KubernetesManifests();
        try (Stream<Path> paths = Files.list(dir)) {
            for (Path p : paths.filter(f -> f.toString().endsWith(".yaml") || f.toString().endsWith(".yml")).sorted().toList()) {
                String name = p.getFileName().toString();
                if (name.equals(KUSTOMIZATION)) {
                    JsonNode k = YAML.readTree(p.toFile());
                    k.path("resources").forEach(r -> m.kustomizationResources.add(r.asText()));
                    continue;
                }
                m.files.put(name, m.parse(name, Files.readString(p)));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return m;
    }

    private List<HasMetadata> parse(String file, String yaml) throws IOException {
        List<HasMetadata> objects = new ArrayList<>();
        int index = 0;
        try (var docs = YAML.readerFor(JsonNode.class).<JsonNode>readValues(yaml)) {
            while (docs.hasNext()) {
                JsonNode doc = docs.next();
                String where = file + "#" + index++;
                if (doc == null || doc.isNull() || doc.isMissingNode()) continue;
                Object typed = Serialization.unmarshal(YAML.writeValueAsString(doc));
                if (!(typed instanceof HasMetadata h) || typed instanceof GenericKubernetesResource
                        || !KINDS.contains(typed.getClass())) {
                    parseProblems.add(where + ": " + doc.path("apiVersion").asText() + " " + doc.path("kind").asText()
                            + " is not a known kind of these manifests");
                    continue;
                }
                String expectedApi = HasMetadata.getApiVersion(h.getClass());
                if (!expectedApi.equals(h.getApiVersion())) {
                    parseProblems.add(where + ": " + h.getKind() + " has apiVersion " + h.getApiVersion() + ", not " + expectedApi);
                }
                unknownFields(typed, where + ":" + h.getKind(), parseProblems);
                objects.add(h);
            }
        }
        return objects;
    }

    /** fabric8 keeps a field it does not know (a typo such as {@code readinesProbe}) in additionalProperties: none may be there. */
    static void unknownFields(Object o, String path, List<String> problems) {
        if (o == null) return;
        if (o instanceof Collection<?> c) {
            int i = 0;
            for (Object e : c) unknownFields(e, path + "[" + i++ + "]", problems);
            return;
        }
        if (o instanceof Map<?, ?> map) {
            map.forEach((k, v) -> unknownFields(v, path + "." + k, problems));
            return;
        }
        if (!o.getClass().getPackageName().startsWith("io.fabric8.kubernetes.api.model")) return;
        for (Method getter : o.getClass().getMethods()) {
            if (getter.getParameterCount() != 0 || Modifier.isStatic(getter.getModifiers())) continue;
            String n = getter.getName();
            if (!n.startsWith("get") || n.equals("getClass")) continue;
            Object value;
            try {
                value = getter.invoke(o);
            } catch (ReflectiveOperationException e) {
                continue;
            }
            if (n.equals("getAdditionalProperties")) {
                if (value instanceof Map<?, ?> extra && !extra.isEmpty()) {
                    problems.add(path + ": unknown field(s) " + extra.keySet());
                }
            } else if (!(value instanceof String) && !(value instanceof Number) && !(value instanceof Boolean)) {
                unknownFields(value, path + "." + Character.toLowerCase(n.charAt(3)) + n.substring(4), problems);
            }
        }
    }

    <T extends HasMetadata> List<T> all(Class<T> kind) {
        return files.values().stream().flatMap(List::stream).filter(kind::isInstance).map(kind::cast).toList();
    }

    /** Every broken rule, one line each; empty when the manifests keep them all. */
    List<String> problems(Set<String> serverSettings) {
        List<String> p = new ArrayList<>(parseProblems);
        kustomization(p);
        namespaces(p);
        List<Deployment> deployments = all(Deployment.class);
        if (deployments.size() != 1) {
            p.add("expected one Deployment, found " + deployments.size());
            return p;
        }
        Deployment d = deployments.getFirst();
        deployment(d, serverSettings, p);
        services(d, p);
        rbac(p);
        secrets(p);
        return p;
    }

    private void kustomization(List<String> p) {
        Set<String> expected = new TreeSet<>(files.keySet());
        expected.remove(SECRET_EXAMPLE);
        if (!new TreeSet<>(kustomizationResources).equals(expected)) {
            p.add(KUSTOMIZATION + " lists " + new TreeSet<>(kustomizationResources) + ", expected " + expected);
        }
        if (kustomizationResources.contains(SECRET_EXAMPLE)) {
            p.add(KUSTOMIZATION + " must not apply " + SECRET_EXAMPLE + " (it would overwrite the real Secret)");
        }
    }

    private void namespaces(List<String> p) {
        Set<String> declared = new TreeSet<>();
        for (Namespace n : all(Namespace.class)) declared.add(n.getMetadata().getName());
        for (var e : files.entrySet()) {
            for (HasMetadata h : e.getValue()) {
                if (h instanceof Namespace) continue;
                String ns = h.getMetadata().getNamespace();
                if (ns == null || !declared.contains(ns)) {
                    p.add(e.getKey() + ": " + h.getKind() + " " + h.getMetadata().getName() + " is in namespace " + ns
                            + ", which the manifests do not declare");
                }
            }
        }
    }

    private void deployment(Deployment d, Set<String> serverSettings, List<String> p) {
        var spec = d.getSpec().getTemplate().getSpec();
        String ns = d.getMetadata().getNamespace();
        if (!Boolean.FALSE.equals(spec.getEnableServiceLinks())) {
            p.add("Deployment: enableServiceLinks must be false (Service links inject SLIPWAY_API_PORT=tcp://…)");
        }
        if (!Boolean.FALSE.equals(spec.getAutomountServiceAccountToken())) {
            p.add("Deployment: automountServiceAccountToken must be false until the Kubernetes runtime uses the token");
        }
        if (all(ServiceAccount.class).stream().noneMatch(sa -> sa.getMetadata().getName().equals(spec.getServiceAccountName())
                && Objects.equals(sa.getMetadata().getNamespace(), ns))) {
            p.add("Deployment: service account " + spec.getServiceAccountName() + " is not declared in " + ns);
        }
        Map<String, String> selector = d.getSpec().getSelector().getMatchLabels();
        Map<String, String> podLabels = d.getSpec().getTemplate().getMetadata().getLabels();
        if (selector == null || selector.isEmpty() || podLabels == null || !podLabels.entrySet().containsAll(selector.entrySet())) {
            p.add("Deployment: selector " + selector + " does not match the pod labels " + podLabels);
        }
        if (spec.getContainers().size() != 1) {
            p.add("Deployment: expected one container, found " + spec.getContainers().size());
            return;
        }
        Container c = spec.getContainers().getFirst();
        Map<String, EnvVar> env = new LinkedHashMap<>();
        for (EnvVar e : c.getEnv()) {
            if (env.put(e.getName(), e) != null) p.add("Deployment: env " + e.getName() + " is set twice");
            if (!serverSettings.contains(e.getName())) p.add("Deployment: env " + e.getName() + " is not a setting the server reads");
        }
        if (c.getEnvFrom() != null && !c.getEnvFrom().isEmpty()) p.add("Deployment: envFrom hides which settings are set");
        String isolation = value(env.get("SLIPWAY_ISOLATION"));
        if (!"sandbox".equals(isolation)) {
            p.add("Deployment: SLIPWAY_ISOLATION is " + isolation + ": tenants' builds and apps run on the servers, "
                    + "so it must be sandbox (auto falls back to none)");
        }
        var sc = c.getSecurityContext();
        if ("sandbox".equals(isolation) && (sc == null || !Boolean.TRUE.equals(sc.getPrivileged())
                || !Long.valueOf(0).equals(sc.getRunAsUser()) || !Boolean.FALSE.equals(sc.getRunAsNonRoot()))) {
            p.add("Deployment: the sandbox makes namespaces, cgroups and nftables rules as root: the container must be "
                    + "privileged with runAsUser 0 and runAsNonRoot false, or the server refuses to start");
        }
        for (String secret : List.of("SLIPWAY_SECRET_KEY", "SLIPWAY_DATABASE_URL")) {
            EnvVar e = env.get(secret);
            if (e == null || e.getValueFrom() == null || e.getValueFrom().getSecretKeyRef() == null) {
                p.add("Deployment: " + secret + " must come from a Secret (secretKeyRef), never a literal value");
            }
        }
        for (EnvVar e : env.values()) {
            if (e.getValueFrom() == null || e.getValueFrom().getSecretKeyRef() == null) continue;
            var ref = e.getValueFrom().getSecretKeyRef();
            Secret s = all(Secret.class).stream().filter(x -> x.getMetadata().getName().equals(ref.getName())
                    && Objects.equals(x.getMetadata().getNamespace(), ns)).findFirst().orElse(null);
            if (s == null) {
                p.add("Deployment: env " + e.getName() + " refers to Secret " + ref.getName() + ", which is not declared in " + ns);
            } else if (!secretKeys(s).contains(ref.getKey())) {
                p.add("Deployment: env " + e.getName() + " refers to key " + ref.getKey() + " that Secret " + ref.getName() + " lacks");
            }
        }
        String host = value(env.get("SLIPWAY_HOST"));
        if (host == null || host.startsWith("127.") || host.equals("localhost") || host.equals("::1")) {
            p.add("Deployment: SLIPWAY_HOST " + host + " is not reachable from the pod's network (loopback or unset)");
        }
        Map<String, Integer> ports = new LinkedHashMap<>();
        for (ContainerPort cp : c.getPorts()) ports.put(cp.getName(), cp.getContainerPort());
        port(ports, "api", env.get("SLIPWAY_API_PORT"), p);
        port(ports, "apps", env.get("SLIPWAY_APPS_PORT"), p);
        probe("readinessProbe", c.getReadinessProbe(), "/readyz", ports, p);
        probe("livenessProbe", c.getLivenessProbe(), "/healthz", ports, p);
        if (c.getStartupProbe() != null) probe("startupProbe", c.getStartupProbe(), "/healthz", ports, p);
        var r = c.getResources();
        if (r == null || r.getRequests() == null || !r.getRequests().containsKey("cpu") || !r.getRequests().containsKey("memory")
                || r.getLimits() == null || !r.getLimits().containsKey("memory")) {
            p.add("Deployment: the container needs cpu and memory requests and a memory limit");
        }
        if (d.getSpec().getReplicas() == null || d.getSpec().getReplicas() < 1) p.add("Deployment: replicas must be set, at least 1");
    }

    private static String value(EnvVar e) {
        return e == null ? null : e.getValue();
    }

    private static void port(Map<String, Integer> ports, String name, EnvVar setting, List<String> p) {
        Integer port = ports.get(name);
        if (port == null) {
            p.add("Deployment: the container has no port named " + name);
        } else if (setting == null || !String.valueOf(port).equals(setting.getValue())) {
            p.add("Deployment: port " + name + " is " + port + " but the server listens on " + value(setting));
        }
    }

    private static void probe(String which, Probe probe, String path, Map<String, Integer> ports, List<String> p) {
        HTTPGetAction get = probe == null ? null : probe.getHttpGet();
        if (get == null) {
            p.add("Deployment: " + which + " must be an httpGet on " + path);
            return;
        }
        if (!path.equals(get.getPath())) p.add("Deployment: " + which + " asks " + get.getPath() + ", not " + path);
        String port = get.getPort() == null ? null : get.getPort().getStrVal();
        if (!"api".equals(port) || !ports.containsKey(port)) {
            p.add("Deployment: " + which + " must ask the port named api (the API listener), not " + portText(get.getPort()));
        }
    }

    private static String portText(IntOrString port) {
        if (port == null) return "none";
        return port.getStrVal() != null ? port.getStrVal() : String.valueOf(port.getIntVal());
    }

    private void services(Deployment d, List<String> p) {
        Map<String, String> podLabels = d.getSpec().getTemplate().getMetadata().getLabels();
        Set<String> portNames = new TreeSet<>();
        d.getSpec().getTemplate().getSpec().getContainers().forEach(c -> c.getPorts().forEach(cp -> portNames.add(cp.getName())));
        Set<String> targeted = new TreeSet<>();
        for (Service s : all(Service.class)) {
            String name = s.getMetadata().getName();
            Map<String, String> sel = s.getSpec().getSelector();
            if (sel == null || sel.isEmpty() || !podLabels.entrySet().containsAll(sel.entrySet())) {
                p.add("Service " + name + ": selector " + sel + " does not select the Deployment's pods " + podLabels);
            }
            if (!Objects.equals(s.getMetadata().getNamespace(), d.getMetadata().getNamespace())) {
                p.add("Service " + name + " is not in the Deployment's namespace");
            }
            for (ServicePort sp : s.getSpec().getPorts()) {
                String target = sp.getTargetPort() == null ? null : sp.getTargetPort().getStrVal();
                if (target == null || !portNames.contains(target)) {
                    p.add("Service " + name + ": targetPort " + portText(sp.getTargetPort()) + " is not a named port of the container " + portNames);
                } else {
                    targeted.add(target);
                }
            }
        }
        if (!targeted.containsAll(Set.of("api", "apps"))) p.add("Services must reach both the api and the apps ports, reach " + targeted);
    }

    private void rbac(List<String> p) {
        Map<String, Set<String>> granted = new TreeMap<>();
        for (Role role : all(Role.class)) {
            for (PolicyRule rule : role.getRules()) {
                if (rule.getResourceNames() != null && !rule.getResourceNames().isEmpty()) continue;
                if (rule.getNonResourceURLs() != null && !rule.getNonResourceURLs().isEmpty()) {
                    p.add("Role " + role.getMetadata().getName() + ": non-resource URLs " + rule.getNonResourceURLs());
                }
                for (String group : rule.getApiGroups()) {
                    for (String resource : rule.getResources()) {
                        for (String verb : rule.getVerbs()) {
                            if (FORBIDDEN_VERBS.contains(verb) || group.equals("*") || resource.equals("*")) {
                                p.add("Role " + role.getMetadata().getName() + ": " + verb + " on " + group + "/" + resource + " is never granted");
                            }
                            granted.computeIfAbsent(group + "/" + resource, k -> new TreeSet<>()).add(verb);
                        }
                    }
                }
            }
        }
        Map<String, Set<String>> expected = new TreeMap<>();
        RUNTIME_RULES.forEach((k, v) -> expected.put(k, new TreeSet<>(v)));
        if (!granted.equals(expected)) p.add("Roles grant " + granted + ", expected exactly " + expected);
        for (RoleBinding b : all(RoleBinding.class)) {
            String name = b.getMetadata().getName();
            var ref = b.getRoleRef();
            if (!"Role".equals(ref.getKind()) || all(Role.class).stream().noneMatch(r -> r.getMetadata().getName().equals(ref.getName())
                    && Objects.equals(r.getMetadata().getNamespace(), b.getMetadata().getNamespace()))) {
                p.add("RoleBinding " + name + ": binds " + ref.getKind() + " " + ref.getName() + ", not a Role of its namespace");
            }
            for (Subject s : b.getSubjects()) {
                boolean known = "ServiceAccount".equals(s.getKind()) && all(ServiceAccount.class).stream().anyMatch(sa ->
                        sa.getMetadata().getName().equals(s.getName()) && Objects.equals(sa.getMetadata().getNamespace(), s.getNamespace()));
                if (!known) p.add("RoleBinding " + name + ": subject " + s.getKind() + " " + s.getNamespace() + "/" + s.getName()
                        + " is not the servers' service account");
            }
        }
        if (all(RoleBinding.class).isEmpty()) p.add("no RoleBinding gives the servers' service account the runtime's Role");
    }

    private void secrets(List<String> p) {
        for (Secret s : all(Secret.class)) {
            Map<String, String> values = new TreeMap<>();
            if (s.getStringData() != null) values.putAll(s.getStringData());
            if (s.getData() != null) values.putAll(s.getData());
            values.forEach((k, v) -> {
                if (v == null || !v.startsWith(PLACEHOLDER)) {
                    p.add("Secret " + s.getMetadata().getName() + ": " + k + " holds a value, not a " + PLACEHOLDER + " placeholder");
                }
            });
        }
    }

    private static Set<String> secretKeys(Secret s) {
        Set<String> keys = new TreeSet<>();
        if (s.getStringData() != null) keys.addAll(s.getStringData().keySet());
        if (s.getData() != null) keys.addAll(s.getData().keySet());
        return keys;
    }

    /**
     * The server's settings: the environment names of the configuration table (the "Configuration" section of
     * {@code docs/operations.md}), each of which the server's code really reads (a name the table has but the code
     * does not is a problem too).
     */
    static Set<String> serverSettings(Path settingsPage, Path sources) throws IOException {
        String text = Files.readString(settingsPage);
        int start = text.indexOf("\n## Configuration");
        int end = start < 0 ? -1 : text.indexOf("\n## ", start + 1);
        if (end < 0 && start >= 0) end = text.length();
        if (start < 0) throw new IllegalStateException(settingsPage + " has no configuration section");
        Set<String> names = new TreeSet<>();
        for (String line : text.substring(start, end).split("\n")) {
            if (!line.startsWith("|")) continue;
            String[] cells = line.split("\\|");
            if (cells.length < 3) continue;
            Matcher c = Pattern.compile("`(SLIPWAY_[A-Z0-9_]+)`").matcher(cells[2]);
            while (c.find()) names.add(c.group(1));
        }
        if (names.isEmpty()) throw new IllegalStateException("the configuration table of " + settingsPage + " was not found");
        StringBuilder code = new StringBuilder();
        try (Stream<Path> files = Files.walk(sources)) {
            for (Path f : files.filter(f -> f.toString().endsWith(".java")).toList()) code.append(Files.readString(f));
        }
        for (String n : names) {
            if (!code.toString().contains("\"" + n + "\"") && !code.toString().contains("${env:" + n)) {
                throw new IllegalStateException("the configuration table of " + settingsPage + " names " + n + ", which the server never reads");
            }
        }
        return names;
    }
}
