package dev.slipway.migrations;

import dev.slipway.deployments.MigrationProgress;
import dev.slipway.logs.Level;
import org.jdbi.v3.core.Handle;

/** Keeps a migration's record in step with its first deployment's run. */
public final class MigrationRecords implements MigrationProgress {
    private final MigrationStore migrations;

    public MigrationRecords(MigrationStore migrations) {
        this.migrations = migrations;
    }

    @Override
    public void started(String migrationId) {
        migrations.transition(migrationId, MigrationStatus.PENDING, MigrationStatus.PROCESSING,
                Level.INFO, "A build slot is free: provisioning and building");
    }

    @Override
    public void built(String migrationId, String framework) {
        migrations.recordFramework(migrationId, framework);
    }

    @Override
    public void failed(Handle h, String migrationId, String cause) {
        for (MigrationStatus from : new MigrationStatus[]{MigrationStatus.PENDING, MigrationStatus.PROCESSING}) {
            migrations.transition(h, migrationId, from, MigrationStatus.FAILED, Level.ERROR, "Migration failed: " + cause);
        }
    }

    @Override
    public void completed(Handle h, String migrationId, String url) {
        migrations.transition(h, migrationId, MigrationStatus.PROCESSING, MigrationStatus.COMPLETE,
                Level.SUCCESS, "Migration complete: the app is live at " + url);
    }
}
