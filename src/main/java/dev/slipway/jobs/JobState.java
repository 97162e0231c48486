package dev.slipway.jobs;

import dev.slipway.store.StateMachine;

import java.util.Locale;

/** Where a durable job stands. */
public enum JobState {
    /** Waiting to be claimed. */
    READY,
    /** Claimed by a worker, held by its lease; claimable again when the lease expires (the worker died). */
    RUNNING,
    /** Finished, or ended before it started (a cancelled queued deployment). */
    DONE;

    /** The one table of allowed job moves; running → running is a claim of a job whose lease expired. */
    public static final StateMachine<JobState> MACHINE = StateMachine
            .builder(JobState.class, "job", JobState::label)
            .from(READY, RUNNING, DONE)
            .from(RUNNING, RUNNING, DONE)
            .from(DONE)
            .build();

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The label as an SQL literal, for conditions built from constants. */
    String literal() {
        return "'" + label() + "'";
    }
}
