package dev.slipway.net;

import dev.slipway.core.Env;
import dev.slipway.core.Setting;

import java.time.Duration;

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
    public static final Setting HEAD_TIMEOUT = Setting.env("SLIPWAY_CLIENT_HEAD_TIMEOUT", "`10`",
            "a request head must arrive whole within this (seconds, `200ms` or ISO-8601), on the apps listener (HTTP and "
                    + "HTTPS) and the API: counted from the connection's opening for its first request (a TLS handshake "
                    + "included), from its first byte for a later one; a late head gets a 408 and the connection is closed, "
                    + "a connection that sent nothing is closed ([Slow and greedy clients](#slow-and-greedy-clients))");
    public static final Setting BODY_MIN_RATE = Setting.env("SLIPWAY_CLIENT_BODY_MIN_RATE", "`1024`",
            "bytes a second a request body must keep arriving at, on average, while the server waits for it; slower gets "
                    + "a 408 and the connection closed (`0`: no minimum)");
    public static final Setting PER_CLIENT = Setting.env("SLIPWAY_MAX_CONNECTIONS_PER_CLIENT", "`256`",
            "connections open at once from one client address (an IPv6 client: its /64), on the apps listener (HTTP and "
                    + "HTTPS together) and on the API; one more is refused (503 over HTTP, closed over HTTPS). A trusted "
                    + "proxy is exempt");
    public static final Setting TOTAL = Setting.env("SLIPWAY_MAX_CONNECTIONS", "`10000`",
            "connections open at once on the apps listener (HTTP and HTTPS together), and on the API; past it, refused as above");
    public static final ClientLimits DEFAULTS = new ClientLimits(Duration.ofSeconds(10), 1024, 256, 10_000);

    public ClientLimits {
        if (headTimeout.isNegative() || headTimeout.isZero()) throw new IllegalArgumentException(HEAD_TIMEOUT.variable() + " must be positive");
        if (bodyMinRate < 0) throw new IllegalArgumentException(BODY_MIN_RATE.variable() + " must be 0 or more");
        if (perClient < 1) throw new IllegalArgumentException(PER_CLIENT.variable() + " must be 1 or more");
        if (total < perClient) throw new IllegalArgumentException(TOTAL.variable() + " must be at least " + PER_CLIENT.variable());
    }

    /** The defaults, with what the environment sets; a bad value is an {@link IllegalArgumentException} naming it. */
    public static ClientLimits fromEnv(Env env) {
        return new ClientLimits(env.duration(HEAD_TIMEOUT, DEFAULTS.headTimeout),
                env.number(BODY_MIN_RATE, 0, Integer.MAX_VALUE, DEFAULTS.bodyMinRate),
                env.integer(PER_CLIENT, 1, Integer.MAX_VALUE, DEFAULTS.perClient),
                env.integer(TOTAL, 1, Integer.MAX_VALUE, DEFAULTS.total));
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
}
