package dev.slipway.runtime;

/**
 * A project's persistent volume as an app sees it: a file system of {@code sizeMb} at {@code path} in every instance
 * and cron run, kept across deploys and rollbacks, deleted only with its project.
 */
public record Volume(String name, String path, int sizeMb) {}
