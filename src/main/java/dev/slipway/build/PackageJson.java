package dev.slipway.build;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The parts of a package.json the build reads. */
public record PackageJson(Map<String, String> dependencies, Map<String, String> devDependencies,
                   Map<String, String> scripts, String main) {
    public static final String FILE = "package.json";
    /** The scripts a package manager runs during an install: their text is part of what an install does. */
    public static final List<String> INSTALL_SCRIPTS = List.of("preinstall", "install", "postinstall", "prepublish",
            "preprepare", "prepare", "postprepare", "dependencies");
    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** Empty when the directory has no package.json; a clear {@link BuildException} when it is not valid. */
    public static Optional<PackageJson> read(Path dir) {
        Path file = dir.resolve(FILE);
        if (!Files.isRegularFile(file)) return Optional.empty();
        JsonNode root;
        try {
            root = MAPPER.readTree(file.toFile());
        } catch (IOException e) {
            String why = e.getMessage() == null ? e.toString() : e.getMessage().lines().findFirst().orElse("");
            throw new BuildException("package.json is not valid JSON: " + why, e);
        }
        if (root == null || !root.isObject()) throw new BuildException("package.json must hold a JSON object");
        JsonNode main = root.get("main");
        return Optional.of(new PackageJson(strings(root, "dependencies"), strings(root, "devDependencies"),
                strings(root, "scripts"), main != null && main.isTextual() ? main.asText() : null));
    }

    public boolean dependsOn(String name) {
        return dependencies.containsKey(name) || devDependencies.containsKey(name);
    }

    public Optional<String> script(String name) {
        String s = scripts.get(name);
        return s == null || s.isBlank() ? Optional.empty() : Optional.of(s.strip());
    }

    private static Map<String, String> strings(JsonNode root, String field) {
        JsonNode node = root.get(field);
        if (node == null || node.isNull()) return Map.of();
        if (!node.isObject()) throw new BuildException("package.json field \"" + field + "\" must be an object");
        Map<String, String> out = new LinkedHashMap<>();
        node.properties().forEach(e -> out.put(e.getKey(), e.getValue().isTextual() ? e.getValue().asText() : e.getValue().toString()));
        return Map.copyOf(out);
    }
}
