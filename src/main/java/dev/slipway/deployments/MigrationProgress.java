package dev.slipway.deployments;

import org.jdbi.v3.core.Handle;

/**
 * What a migration learns from its first deployment's run. The migrations package implements it; a
 * deployment knows only that it may belong to a migration ({@link Deployment#migrationId()}). Calls that take
 * a handle run in the deployment's own transaction, so the two records change together.
 */
public interface MigrationProgress {
    /** The run got a build slot (pending → processing). */
    void started(String migrationId);

    /** The build detected (or was told) this framework. */
    void built(String migrationId, String framework);

    /** The deployment failed; so does the migration, with the same cause. */
    void failed(Handle h, String migrationId, String cause);

    /** The deployment is live and production: the migration is complete. */
    void completed(Handle h, String migrationId, String url);
}
