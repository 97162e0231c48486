package dev.slipway.cron;

import java.time.Instant;

/**
 * One run of a cron job, or one time it did not run (missed, skipped).
 *
 * @param scheduledFor the time of the schedule it is for
 * @param exitCode     its command's exit code once it ended; null while running, or when it never ran
 * @param reason       why it failed, was missed or skipped; null otherwise
 */
public record CronRun(String id, String projectId, String deploymentId, String name, Instant scheduledFor,
                      CronRunStatus status, Integer exitCode, String reason, Instant startedAt, Instant finishedAt,
                      Instant createdAt) {}
