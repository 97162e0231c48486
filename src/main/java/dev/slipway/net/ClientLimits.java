package dev.slipway.net;

import dev.slipway.core.SettingDurations;

import java.time.Duration;
import java.util.Map;

/**
 * What one client may take of a public listener (the apps listener, HTTP and HTTPS, and the API), so that slow
 * or many connections from one place cannot hold the rest out.
 *
 * @param headTimeout a request head must arrive whole within this: from the connection's opening for its first
 *                    request (a TLS handshake included), from its first byte for a later one; else 408 and closed
 * @param bodyMinRate bytes a second a request body must keep arriving at, on average, while the server waits for
 *                    it; else 408 and closed (0: no minimum)
 * @param perClient   connections open at once from one address (IPv6: one /64); a trusted proxy's are exempt
 * @param total       connections open at once on the apps listener (HTTP and HTTPS together), and on the API's
 */
public record ClientLimits(Duration headTimeout, long bodyMinRate, int perClient, int total) {
    public static final String HEAD_TIMEOUT = "SLIPWAY_CLIENT_HEAD_TIMEOUT";
    public static final String BODY_MIN_RATE = "SLIPWAY_CLIENT_BODY_MIN_RATE";
    public static final String PER_CLIENT = "SLIPWAY_MAX_CONNECTIONS_PER_CLIENT";
    public static final String TOTAL = "SLIPWAY_MAX_CONNECTIONS";
    public static final ClientLimits DEFAULTS = new ClientLimits(Duration.ofSeconds(10), 1024, 256, 10_000);

    public ClientLimits {
        if (headTimeout.isNegative() || headTimeout.isZero()) throw new IllegalArgumentException(HEAD_TIMEOUT + " must be positive");
        if (bodyMinRate < 0) throw new IllegalArgumentException(BODY_MIN_RATE + " must be 0 or more");
        if (perClient < 1) throw new IllegalArgumentException(PER_CLIENT + " must be 1 or more");
        if (total < perClient) throw new IllegalArgumentException(TOTAL + " must be at least " + PER_CLIENT);
    }

    /** The defaults, with what the environment sets; a bad value is an {@link IllegalArgumentException} naming it. */
    public static ClientLimits fromEnv(Map<String, String> env) {
        String head = env.get(HEAD_TIMEOUT);
        return new ClientLimits(blank(head) ? DEFAULTS.headTimeout : SettingDurations.parse(HEAD_TIMEOUT, head),
                number(env, BODY_MIN_RATE, DEFAULTS.bodyMinRate, 0),
                (int) number(env, PER_CLIENT, DEFAULTS.perClient, 1),
                (int) number(env, TOTAL, DEFAULTS.total, 1));
    }

    public ClientLimits withHeadTimeout(Duration d) {
        return new ClientLimits(d, bodyMinRate, perClient, total);
    }

    public ClientLimits withBodyMinRate(long bytesPerSecond) {
        return new ClientLimits(headTimeout, bytesPerSecond, perClient, total);
    }

    public ClientLimits withConnections(int perClient, int total) {
        return new ClientLimits(headTimeout, bodyMinRate, perClient, total);
    }

    private static long number(Map<String, String> env, String name, long fallback, long min) {
        String v = env.get(name);
        if (blank(v)) return fallback;
        try {
            long n = Long.parseLong(v.strip());
            if (n < min || n > Integer.MAX_VALUE) throw new NumberFormatException();
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a whole number from " + min + ", got '" + v + "'");
        }
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }
}
