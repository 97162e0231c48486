package dev.slipway.accounts;

import java.util.Locale;

/** Plan tiers: their default requests per minute (DESIGN §3) and how many of an account's runs build at once. */
public enum Tier {
    FREE(30, 1), PRO(120, 2), TEAM(600, 4);

    private final int requestsPerMinute;
    private final int buildsAtOnce;

    Tier(int requestsPerMinute, int buildsAtOnce) {
        this.requestsPerMinute = requestsPerMinute;
        this.buildsAtOnce = buildsAtOnce;
    }

    public int requestsPerMinute() { return requestsPerMinute; }

    /** Deployments of one account that hold a build slot at once; more wait, while other accounts' runs go first. */
    public int buildsAtOnce() { return buildsAtOnce; }

    public String label() { return name().toLowerCase(Locale.ROOT); }

    public static Tier parse(String value) {
        for (Tier t : values()) if (t.label().equals(value)) return t;
        throw new IllegalArgumentException("tier must be one of free, pro, team (got '" + value + "')");
    }
}
