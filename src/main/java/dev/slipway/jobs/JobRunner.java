package dev.slipway.jobs;

/** Runs one claimed job to its end. {@code attempt} > 1 means an earlier run was interrupted (a crash). */
@FunctionalInterface
public interface JobRunner {
    void run(Job job, Lease lease) throws Exception;

    /** The worker's hold on a job; a runner checks it between steps. */
    interface Lease {
        /** False once the lease was lost or the job was cancelled: stop at the next step. */
        boolean held();
    }
}
