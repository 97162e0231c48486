package dev.slipway.build.docker;

import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A Dockerfile build's arguments: the app's variables that its {@code ARG}s declare. They reach buildah through its
 * environment (it takes a {@code --build-arg} given by name only from there), so no command line holds a value.
 */
final class BuildArguments {
    /** What would change how the launcher or buildah itself runs, rather than what the Dockerfile builds. */
    private static final Set<String> RESERVED = Set.of("PATH", "HOME", "LANG", "TMPDIR", "IFS", "ENV", "BASH_ENV", "SHELL");
    private static final List<String> RESERVED_PREFIXES = List.of("LD_", "XDG_", "BUILDAH_", "_BUILDAH", "CONTAINERS_",
            "_CONTAINERS", "STORAGE_", "REGISTRY_AUTH", "SLIPWAY_");

    private BuildArguments() {}

    /** The variables the Dockerfile declares as {@code ARG}s, less the reserved ones (each named in the log). */
    static Map<String, String> of(DockerfileText dockerfile, Map<String, String> variables, LogSink log) {
        Map<String, String> arguments = new LinkedHashMap<>();
        for (String name : dockerfile.arguments()) {
            if (!variables.containsKey(name)) continue;
            if (reserved(name)) {
                log.log(Level.WARNING, "The variable " + name + " is not given to the build as an argument: the name is "
                        + "buildah's own; its ARG keeps its default");
                continue;
            }
            arguments.put(name, variables.get(name));
        }
        return arguments;
    }

    static boolean reserved(String name) {
        String upper = name.toUpperCase(Locale.ROOT);
        return RESERVED.contains(upper) || RESERVED_PREFIXES.stream().anyMatch(upper::startsWith);
    }

    /** A shell file that exports the arguments, readable by its owner only. */
    static Path write(Path file, Map<String, String> arguments) throws IOException {
        StringBuilder text = new StringBuilder();
        arguments.forEach((name, value) -> text.append("export ").append(name).append("='")
                .append(value.replace("'", "'\\''")).append("'\n"));
        Files.writeString(file, "", StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        Files.writeString(file, text, StandardCharsets.UTF_8);
        return file;
    }

    /** Runs {@code argv} with the arguments of {@code file} in its environment. */
    static List<String> withArguments(Path file, List<String> argv) {
        List<String> wrapped = new ArrayList<>(List.of("/bin/sh", "-c", "set -e; . \"$1\"; shift; exec \"$@\"", "sh",
                file.toString()));
        wrapped.addAll(argv);
        return wrapped;
    }
}
