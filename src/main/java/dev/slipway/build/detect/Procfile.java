package dev.slipway.build.detect;

import dev.slipway.build.BuildException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a Heroku-style Procfile: its {@code web:} process overrides the detected start command; its {@code release:}
 * command runs once per deployment, after the build and before the app is started and promoted.
 */
public final class Procfile {
    public static final String NAME = "Procfile";
    private static final Pattern LINE = Pattern.compile("^([A-Za-z0-9_-]+)\\s*:\\s*(.*)$");
    private static final Set<String> NOT_WORKERS = Set.of("web", "release");

    private Procfile() {}

    /** The web command as argv (see {@link CommandLine} for what is supported); empty without a Procfile or web line. */
    public static Optional<List<String>> web(Path sourceDir) {
        return command(sourceDir, "web");
    }

    /** The release command as argv; empty without a Procfile or release line. */
    public static Optional<List<String>> release(Path appDir) {
        return command(appDir, "release");
    }

    /**
     * The processes that run beside the web one ({@code worker:} and any other name but {@code web} and
     * {@code release}), in the file's order, each as argv.
     */
    public static Map<String, List<String>> workers(Path appDir) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (String raw : lines(appDir)) {
            Matcher m = LINE.matcher(raw.strip());
            if (!m.matches() || NOT_WORKERS.contains(m.group(1)) || out.containsKey(m.group(1))) continue;
            if (m.group(2).isBlank()) throw new BuildException("the Procfile's " + m.group(1) + ": line has no command");
            out.put(m.group(1), CommandLine.split(m.group(2).strip()));
        }
        return out;
    }

    private static Optional<List<String>> command(Path sourceDir, String type) {
        return line(lines(sourceDir), type).map(CommandLine::split);
    }

    private static List<String> lines(Path dir) {
        Path file = dir.resolve(NAME);
        if (!Files.isRegularFile(file)) return List.of();
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            throw new BuildException("cannot read the Procfile (is it UTF-8 text?): " + e.getMessage(), e);
        }
    }

    private static Optional<String> line(List<String> lines, String type) {
        for (String raw : lines) {
            Matcher m = LINE.matcher(raw.strip());
            if (m.matches() && m.group(1).equals(type)) {
                if (m.group(2).isBlank()) throw new BuildException("the Procfile's " + type + ": line has no command");
                return Optional.of(m.group(2).strip());
            }
        }
        return Optional.empty();
    }
}
