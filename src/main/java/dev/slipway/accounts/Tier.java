package dev.slipway.accounts;

import java.util.Locale;

/**
 * Plan tiers, the one table of what an account may use: its default requests per minute (DESIGN §3), how
 * many of its runs build at once, how many bytes of uploaded zips it keeps and for how many days, how
 * many sandbox plants, how many instances of one app's web process, and how large a volume.
 */
public enum Tier {
    FREE(30, 1, 500, 7, 1_000, 1, 1024), PRO(120, 2, 5 * 1024, 30, 10_000, 5, 10 * 1024),
    TEAM(600, 4, 20 * 1024, 90, 100_000, 10, 50 * 1024);

    private final int requestsPerMinute;
    private final int buildsAtOnce;
    private final long uploadMb;
    private final int uploadDays;
    private final int plants;
    private final int replicas;
    private final int volumeMb;

    Tier(int requestsPerMinute, int buildsAtOnce, long uploadMb, int uploadDays, int plants, int replicas, int volumeMb) {
        this.replicas = replicas;
        this.volumeMb = volumeMb;
        this.requestsPerMinute = requestsPerMinute;
        this.buildsAtOnce = buildsAtOnce;
        this.uploadMb = uploadMb;
        this.uploadDays = uploadDays;
        this.plants = plants;
    }

    /** Plants the account may keep in the sandbox's plant store; one more is a 429. */
    public int plants() { return plants; }

    /** Bytes of uploaded zips the account may keep at once; an upload past it is a 413. */
    public long uploadBytes() { return uploadMb * 1024 * 1024; }

    /** Days an upload is kept; then it is deleted unless a run still waiting to build needs it. */
    public int uploadDays() { return uploadDays; }

    public int requestsPerMinute() { return requestsPerMinute; }

    /** Instances of one app's web process ({@code replicas}); more is refused. */
    public int maxReplicas() { return replicas; }

    /** The size of one of its projects' volumes, in MB; a larger one fails the deployment. */
    public int maxVolumeMb() { return volumeMb; }

    /** Deployments of one account that hold a build slot at once; more wait, while other accounts' runs go first. */
    public int buildsAtOnce() { return buildsAtOnce; }

    public String label() { return name().toLowerCase(Locale.ROOT); }

    public static Tier parse(String value) {
        for (Tier t : values()) if (t.label().equals(value)) return t;
        throw new IllegalArgumentException("tier must be one of free, pro, team (got '" + value + "')");
    }
}
