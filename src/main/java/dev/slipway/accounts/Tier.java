package dev.slipway.accounts;

import java.util.Locale;

/** Plan tiers and their default requests per minute (DESIGN §3). */
public enum Tier {
    FREE(30), PRO(120), TEAM(600);

    private final int requestsPerMinute;

    Tier(int requestsPerMinute) {
        this.requestsPerMinute = requestsPerMinute;
    }

    public int requestsPerMinute() { return requestsPerMinute; }

    public String label() { return name().toLowerCase(Locale.ROOT); }

    public static Tier parse(String value) {
        for (Tier t : values()) if (t.label().equals(value)) return t;
        throw new IllegalArgumentException("tier must be one of free, pro, team (got '" + value + "')");
    }
}
