package dev.slipway.core;

import java.util.Objects;

/**
 * One setting of the server, as the operator sees it: read from {@link Env} and listed in the configuration table
 * of {@code docs/operations.md}.
 *
 * @param variable     the environment variable
 * @param flag         the {@code server} command's flag (e.g. {@code --host}); null when it has none
 * @param defaultShown the default as the docs show it (markdown)
 * @param meaning      what it does (markdown)
 */
public record Setting(String variable, String flag, String defaultShown, String meaning) {
    public Setting {
        Objects.requireNonNull(variable, "variable");
        Objects.requireNonNull(defaultShown, "defaultShown");
        Objects.requireNonNull(meaning, "meaning");
    }

    /** A setting of the environment only. */
    public static Setting env(String variable, String defaultShown, String meaning) {
        return new Setting(variable, null, defaultShown, meaning);
    }

    /** A setting with a flag of the {@code server} command, which wins over the variable. */
    public static Setting flag(String flag, String variable, String defaultShown, String meaning) {
        return new Setting(variable, Objects.requireNonNull(flag, "flag"), defaultShown, meaning);
    }
}
