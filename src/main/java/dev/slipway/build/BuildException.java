package dev.slipway.build;

import java.util.List;

/**
 * A build that cannot go on, with a message meant for the user reading the deployment's logs.
 * For a failed command it also carries the exit code (or null) and the last lines of output.
 */
public final class BuildException extends RuntimeException {
    private final Integer exitCode;
    private final List<String> lastLines;

    public BuildException(String message) {
        this(message, null, List.of(), null);
    }

    public BuildException(String message, Throwable cause) {
        this(message, null, List.of(), cause);
    }

    public BuildException(String message, Integer exitCode, List<String> lastLines) {
        this(message, exitCode, lastLines, null);
    }

    private BuildException(String message, Integer exitCode, List<String> lastLines, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
        this.lastLines = List.copyOf(lastLines);
    }

    /** The exit code of the command that failed; null when no command failed (or it timed out). */
    public Integer exitCode() { return exitCode; }

    /** The last lines the failed command printed (masked), oldest first. */
    public List<String> lastLines() { return lastLines; }
}
