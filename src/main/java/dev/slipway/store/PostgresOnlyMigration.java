package dev.slipway.store;

import org.flywaydb.core.api.MigrationVersion;
import org.flywaydb.core.api.migration.Context;
import org.flywaydb.core.api.migration.JavaMigration;

import java.sql.Statement;

/**
 * A schema migration that runs its SQL on PostgreSQL only (triggers for the notices servers sharing one
 * store send each other); the embedded store has a single server and records it as done with nothing to do.
 */
abstract class PostgresOnlyMigration implements JavaMigration {
    private final String version;
    private final String description;
    private final String sql;

    PostgresOnlyMigration(String version, String description, String sql) {
        this.version = version;
        this.description = description;
        this.sql = sql;
    }

    @Override
    public MigrationVersion getVersion() { return MigrationVersion.fromVersion(version); }

    @Override
    public String getDescription() { return description; }

    @Override
    public Integer getChecksum() { return sql.hashCode(); }

    @Override
    public boolean canExecuteInTransaction() { return true; }

    @Override
    public void migrate(Context context) throws Exception {
        var connection = context.getConnection();
        if (Dialect.of(connection) != Dialect.POSTGRES) return;
        try (Statement s = connection.createStatement()) {
            s.execute(sql);
        }
    }
}
