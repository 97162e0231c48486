package dev.slipway.appconfig;

/** One mistake in a {@code slipway.toml}, at its line (0: the file as a whole). */
public record ConfigProblem(int line, String message) {
    @Override
    public String toString() {
        return (line > 0 ? "line " + line + ": " : "") + message;
    }
}
