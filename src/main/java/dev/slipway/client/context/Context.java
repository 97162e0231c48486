package dev.slipway.client.context;

import java.io.PrintStream;
import java.util.Map;

/**
 * What a client command runs with: its environment (configuration and secrets come from here, never
 * from the command line), where it prints, and whether a person watches a terminal.
 */
public record Context(Map<String, String> env, PrintStream out, PrintStream err, boolean terminal) {
    public String env(String name) {
        String v = env.get(name);
        return v == null || v.isBlank() ? null : v.trim();
    }
}
