package dev.slipway.build.detect;

import dev.slipway.build.BuildException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads the {@code web:} process of a Heroku-style Procfile; it overrides the detected start command. */
public final class Procfile {
    static final String FILE = "Procfile";
    private static final Pattern LINE = Pattern.compile("^([A-Za-z0-9_-]+)\\s*:\\s*(.*)$");

    private Procfile() {}

    /** The web command as argv (see {@link CommandLine} for what is supported); empty without a Procfile or web line. */
    public static Optional<List<String>> web(Path sourceDir) {
        Path file = sourceDir.resolve(FILE);
        if (!Files.isRegularFile(file)) return Optional.empty();
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (IOException e) {
            throw new BuildException("cannot read the Procfile (is it UTF-8 text?): " + e.getMessage(), e);
        }
        return webLine(lines).map(CommandLine::split);
    }

    static Optional<String> webLine(List<String> lines) {
        for (String raw : lines) {
            Matcher m = LINE.matcher(raw.strip());
            if (m.matches() && m.group(1).equals("web")) {
                if (m.group(2).isBlank()) throw new BuildException("the Procfile's web: line has no command");
                return Optional.of(m.group(2).strip());
            }
        }
        return Optional.empty();
    }
}
