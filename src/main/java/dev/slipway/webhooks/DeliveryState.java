package dev.slipway.webhooks;

import dev.slipway.store.StateMachine;

import java.util.Locale;

/** Where one delivery of an event to an endpoint stands. A redelivery is a new delivery of the same message. */
public enum DeliveryState {
    /** Due at {@code next_attempt_at}; pending → pending is a failed attempt with another to come. */
    PENDING,
    /** An attempt got a 2xx. */
    SUCCEEDED,
    /** Given up: its retries ran out, the endpoint answered 410 or was disabled. */
    FAILED;

    /** The one table of allowed delivery moves. */
    public static final StateMachine<DeliveryState> MACHINE = StateMachine
            .builder(DeliveryState.class, "delivery", DeliveryState::label)
            .from(PENDING, PENDING, SUCCEEDED, FAILED)
            .from(SUCCEEDED)
            .from(FAILED)
            .build();

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    static DeliveryState parse(String label) {
        return valueOf(label.toUpperCase(Locale.ROOT));
    }
}
