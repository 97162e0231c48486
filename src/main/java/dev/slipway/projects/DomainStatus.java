package dev.slipway.projects;

import dev.slipway.store.StateMachine;

import java.util.Locale;

/** Whether a project's custom domain has been proven to be under its owner's control. */
public enum DomainStatus {
    PENDING_VERIFICATION, VERIFIED;

    /**
     * The one table of domain moves. A proof makes it verified; setting another domain starts over
     * (a new token, pending again), whatever the old one's state.
     */
    public static final StateMachine<DomainStatus> MACHINE = StateMachine
            .builder(DomainStatus.class, "domain", DomainStatus::label)
            .from(PENDING_VERIFICATION, VERIFIED)
            .from(VERIFIED, PENDING_VERIFICATION)
            .build();

    public String label() { return name().toLowerCase(Locale.ROOT); }

    /** Null for null (a project without a domain). */
    public static DomainStatus parse(String s) {
        if (s == null) return null;
        for (DomainStatus v : values()) if (v.label().equals(s)) return v;
        throw new IllegalArgumentException("unknown domain status " + s);
    }
}
