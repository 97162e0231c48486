package dev.slipway.build.steps;

import dev.slipway.logs.Level;

import java.util.regex.Pattern;

/**
 * The level of a line of command output. Standard output is always {@code info}. Standard error is
 * {@code info} too (npm, pip and Next.js write progress there) unless the line clearly says it is an
 * error or a warning by its first word.
 */
final class OutputLevels {
    private static final Pattern ERROR = Pattern.compile(
            "^(npm (ERR!|error)|ERROR\\b|Error:|error(\\[[^]]*])?:|\\[?error]?\\b|Traceback \\(most recent call last\\)|[A-Za-z]+Error: )");
    private static final Pattern WARNING = Pattern.compile(
            "^(npm (WARN|warn)\\b|WARN(ING)?\\b|[Ww]arning:|warn\\b|\\[?warn(ing)?]?:?\\s)");

    private OutputLevels() {}

    static Level stdout(String line) {
        return Level.INFO;
    }

    static Level stderr(String line) {
        String l = line.stripLeading();
        if (ERROR.matcher(l).find()) return Level.ERROR;
        if (WARNING.matcher(l).find()) return Level.WARNING;
        return Level.INFO;
    }
}
