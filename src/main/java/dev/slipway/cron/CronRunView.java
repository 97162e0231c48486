package dev.slipway.cron;

import java.time.Instant;

/** A cron run as {@code GET /v1/projects/{id}/cron-runs} shows it. */
public record CronRunView(String id, String name, String status, Integer exitCode, Instant scheduledFor, Instant startedAt,
                          Instant finishedAt, String deploymentId, String reason, String logsUrl) {
    static CronRunView of(CronRun r, String logsUrl) {
        return new CronRunView(r.id(), r.name(), r.status().label(), r.exitCode(), r.scheduledFor(), r.startedAt(),
                r.finishedAt(), r.deploymentId(), r.reason(), logsUrl);
    }
}
