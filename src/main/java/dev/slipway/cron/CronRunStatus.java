package dev.slipway.cron;

import dev.slipway.store.StateMachine;

import java.util.Locale;

/** Where a cron run stands. A run that could not start is recorded as such, never dropped. */
public enum CronRunStatus {
    RUNNING,
    SUCCEEDED,
    FAILED,
    /** Its time passed while no server ran (downtime): reported, not run late. */
    MISSED,
    /** The job's previous run was still running at its time: a run never overlaps itself. */
    SKIPPED;

    /** The one table of cron run moves: a run starts running, or is recorded missed or skipped, and ends. */
    public static final StateMachine<CronRunStatus> MACHINE = StateMachine
            .builder(CronRunStatus.class, "cron run", CronRunStatus::label)
            .from(RUNNING, SUCCEEDED, FAILED)
            .from(SUCCEEDED)
            .from(FAILED)
            .from(MISSED)
            .from(SKIPPED)
            .build();

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static CronRunStatus parse(String s) {
        return valueOf(s.toUpperCase(Locale.ROOT));
    }
}
