package dev.slipway.edge;

import dev.slipway.core.Env;
import dev.slipway.core.Setting;

import java.util.Locale;

/**
 * Where the apps listener runs.
 *
 * @param separate   in an edge process of its own, which outlives the server; false: inside the server
 * @param trainCache the launcher's training run: a new edge process makes the class-data cache later ones start from
 */
public record EdgeSettings(boolean separate, boolean trainCache) {
    public static final Setting EDGE = Setting.env("SLIPWAY_EDGE", "`process`",
            "`process`: the apps listener is an edge process of its own, which keeps serving the apps while the server "
                    + "is stopped, upgraded or killed, and which the next start adopts (with automatic HTTPS, the HTTPS listener too); "
                    + "`inline`: inside the server");
    /** Inside the server: a server made in code, such as the tests', unless it asks for the process. */
    public static final EdgeSettings INLINE = new EdgeSettings(false, false);
    public static final EdgeSettings PROCESS = new EdgeSettings(true, false);

    public EdgeSettings training() {
        return new EdgeSettings(separate, true);
    }

    public static EdgeSettings fromEnv(Env env) {
        String v = env.text(EDGE).orElse("process").trim().toLowerCase(Locale.ROOT);
        return switch (v) {
            case "process" -> PROCESS;
            case "inline" -> INLINE;
            default -> throw new IllegalArgumentException(EDGE.variable() + " must be process or inline, not " + v);
        };
    }
}
