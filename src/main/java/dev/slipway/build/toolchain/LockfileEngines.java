package dev.slipway.build.toolchain;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.slipway.core.Json;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code engines.node} of every package in an app's lockfile: npm and pnpm record them
 * ({@code package-lock.json}'s {@code packages}, {@code pnpm-lock.yaml}'s {@code packages}); yarn and bun do not.
 * What npm prints as EBADENGINE is read here before the install, to choose a Node that satisfies them.
 */
final class LockfileEngines {
    private static final String NODE_MODULES = "node_modules/";
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    /** Larger lockfiles are not read for engines (a monorepo's can be tens of megabytes). */
    private static final long MAX_BYTES = 32L * 1024 * 1024;

    /** One package's requirement: {@code nuxt@4.2.1} requires {@code ^20.19.0 || >=22.12.0}. */
    record Requirement(String pkg, String range, String lockfile) {}

    private LockfileEngines() {}

    static List<Requirement> read(Path dir) {
        List<Requirement> out = new ArrayList<>();
        Path npm = dir.resolve("package-lock.json");
        Path pnpm = dir.resolve("pnpm-lock.yaml");
        if (readable(npm)) {
            JsonNode packages = parse(Json.MAPPER, npm).path("packages");
            packages.properties().forEach(e -> {
                if (e.getKey().isEmpty()) return; // the app itself: its engines were read first
                int at = e.getKey().lastIndexOf(NODE_MODULES);
                String name = at < 0 ? e.getKey() : e.getKey().substring(at + NODE_MODULES.length()); // or a workspace member's folder
                add(out, name + "@" + e.getValue().path("version").asText("?"), e.getValue().path("engines"), "package-lock.json");
            });
        } else if (readable(pnpm)) {
            JsonNode packages = parse(YAML, pnpm).path("packages");
            packages.properties().forEach(e -> add(out, e.getKey(), e.getValue().path("engines"), "pnpm-lock.yaml"));
        }
        return out;
    }

    private static void add(List<Requirement> out, String pkg, JsonNode engines, String lockfile) {
        JsonNode node = engines.path("node");
        if (node.isTextual() && !node.asText().isBlank()) out.add(new Requirement(pkg, node.asText().strip(), lockfile));
    }

    private static boolean readable(Path file) {
        try {
            return Files.isRegularFile(file) && Files.size(file) <= MAX_BYTES;
        } catch (IOException e) {
            return false;
        }
    }

    /** The lockfile's tree; an empty one when it cannot be parsed (the install reports a broken lockfile). */
    private static JsonNode parse(ObjectMapper mapper, Path file) {
        try {
            JsonNode n = mapper.readTree(file.toFile());
            return n == null ? mapper.createObjectNode() : n;
        } catch (IOException e) {
            return mapper.createObjectNode();
        }
    }
}
