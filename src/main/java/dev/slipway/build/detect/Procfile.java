package dev.slipway.build.detect;

import dev.slipway.build.BuildException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a Heroku-style Procfile: its {@code web:} process overrides the detected start command; its {@code release:}
 * command runs once per deployment, after the build and before the app is started and promoted.
 */
public final class Procfile {
    static final String FILE = "Procfile";
    private static final Pattern LINE = Pattern.compile("^([A-Za-z0-9_-]+)\\s*:\\s*(.*)$");

    private Procfile() {}

    /** The web command as argv (see {@link CommandLine} for what is supported); empty without a Procfile or web line. */
    public static Optional<List<String>> web(Path sourceDir) {
        return command(sourceDir, "web");
    }

    /** The release command as argv; empty without a Procfile or release line. */
    public static Optional<List<String>> release(Path appDir) {
        return command(appDir, "release");
    }

    private static Optional<List<String>> command(Path sourceDir, String type) {
        Path file = sourceDir.resolve(FILE);
        if (!Files.isRegularFile(file)) return Optional.empty();
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (IOException e) {
            throw new BuildException("cannot read the Procfile (is it UTF-8 text?): " + e.getMessage(), e);
        }
        return line(lines, type).map(CommandLine::split);
    }

    static Optional<String> webLine(List<String> lines) {
        return line(lines, "web");
    }

    static Optional<String> line(List<String> lines, String type) {
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
