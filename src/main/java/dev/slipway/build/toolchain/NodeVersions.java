package dev.slipway.build.toolchain;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.build.BuildException;
import dev.slipway.build.PackageJson;

import dev.slipway.core.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Which Node an app asks for. Precedence, first found wins: {@code .node-version}, {@code .nvmrc}, then
 * {@code engines.node} in package.json: the two files exist only to pin the version, while engines is often a
 * broad statement of compatibility (as Render reads them). A request is an npm semver range; the newest
 * official build in it is used. {@code node}, {@code latest}, {@code current} and {@code stable} mean the
 * newest build; {@code lts/*} and codenames are refused (the registry does not say which line is LTS).
 */
final class NodeVersions {
    /** @param range as written; {@code source} says where: a file name, or {@code engines.node} */
    record Request(String range, String source) {
        /** For the build log: {@code engines.node ^22 in package.json}, {@code .nvmrc 22}. */
        String describe() {
            return source.equals(ENGINES) ? "engines.node " + range + " in package.json" : source + " " + range;
        }

        String where() {
            return source.equals(ENGINES) ? "engines.node in package.json" : source;
        }
    }

    static final String ENGINES = "engines.node";

    private static final Set<String> NEWEST = Set.of("node", "latest", "current", "stable");

    private NodeVersions() {}

    static Optional<Request> requested(Path dir) {
        for (String file : new String[]{".node-version", ".nvmrc"}) {
            Optional<String> line = firstLine(dir.resolve(file));
            if (line.isPresent()) return Optional.of(new Request(line.get(), file));
        }
        return engines(dir).map(r -> new Request(r, ENGINES));
    }

    /** The request as a range, or a {@link BuildException} that says what to write instead. */
    static Semver range(Request r) {
        String text = r.range().strip();
        String lower = text.toLowerCase(Locale.ROOT);
        if (NEWEST.contains(lower)) return Semver.range("*");
        if (lower.startsWith("lts") || lower.matches("[a-z]+") && !lower.equals("x")) {
            throw new BuildException(r.where() + " asks for Node \"" + text + "\", an alias Slipway does not resolve; "
                    + "write a version or range instead, such as 22 or ^20.11");
        }
        try {
            return Semver.range(text);
        } catch (IllegalArgumentException e) {
            throw new BuildException(r.where() + " asks for Node \"" + text + "\", which is not a version range: " + e.getMessage());
        }
    }

    private static Optional<String> engines(Path dir) {
        Path file = dir.resolve(PackageJson.FILE);
        if (!Files.isRegularFile(file)) return Optional.empty();
        try {
            JsonNode node = Json.MAPPER.readTree(file.toFile()).path("engines").path("node");
            return node.isTextual() && !node.asText().isBlank() ? Optional.of(node.asText().strip()) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty(); // PackageJson.read reports an invalid package.json
        }
    }

    /** The first line that is not blank or a comment, if the file exists. */
    private static Optional<String> firstLine(Path file) {
        if (!Files.isRegularFile(file)) return Optional.empty();
        try {
            if (Files.size(file) > 4096) throw new BuildException(file.getFileName() + " is too large to be a Node version");
            return Files.readAllLines(file).stream().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).findFirst();
        } catch (IOException | UncheckedIOException e) {
            throw new BuildException(file.getFileName() + " cannot be read: " + e.getMessage());
        }
    }
}
