package dev.slipway.runtime;

/**
 * One process of a deployment as this runtime runs it: the served one ({@code web}) or a Procfile's other one.
 *
 * @param state    {@code running}, {@code restarting} (between a crash and its next start) or {@code stopped}
 * @param restarts crashes in a row since it last stayed up
 */
public record ProcessState(String type, String state, int restarts) {
    public static final String WEB = "web";
}
