package dev.slipway.tls;

import dev.slipway.store.StateMachine;

import java.util.Locale;

/** Where a domain's certificate stands. A failed renewal keeps serving the certificate it has until it expires. */
public enum CertificateStatus {
    /** Wanted; no order has succeeded or failed yet. */
    PENDING,
    /** A certificate is stored and served; it is renewed before it expires. */
    ISSUED,
    /** The last order failed ({@code last_error}); it is tried again after a growing delay. */
    FAILED;

    /** The one table of allowed certificate moves; issued → issued is a renewal. */
    public static final StateMachine<CertificateStatus> MACHINE = StateMachine
            .builder(CertificateStatus.class, "certificate", CertificateStatus::label)
            .from(PENDING, ISSUED, FAILED)
            .from(ISSUED, ISSUED, FAILED)
            .from(FAILED, ISSUED, FAILED)
            .build();

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    static CertificateStatus parse(String label) {
        return valueOf(label.toUpperCase(Locale.ROOT));
    }
}
