package dev.slipway.cron;

import java.util.List;

/** Every cron job that should run now: those of each project's production deployment. */
@FunctionalInterface
public interface CronTable {
    List<CronJob> jobs();
}
