package dev.slipway.cron;

import dev.slipway.appconfig.Schedule;
import java.time.Instant;
import java.util.List;

/**
 * A cron job of a project's production deployment, as its build's {@code slipway.toml} declares it.
 *
 * @param since   when that deployment went live: no time before it fires (nor is reported missed)
 * @param command the argv, run in the deployment's working directory
 * @param node    the only server that may run it (the one whose disk holds the project's volumes); null: any
 */
public record CronJob(String projectId, String deploymentId, String name, Schedule schedule, List<String> command,
                      Instant since, String node) {}
