package dev.slipway.store;

import org.flywaydb.core.api.MigrationVersion;
import org.flywaydb.core.api.migration.Context;
import org.flywaydb.core.api.migration.JavaMigration;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * A domain is unique among the projects that proved control of it, not among those that claim it:
 * otherwise whoever claims a company's domain first, without any proof, locks the company out of it. The
 * claimed {@code domain} loses its unique constraint and {@code verified_domain}, set only while verified,
 * gets one. A Java migration because V1's constraint has no name of its own: the store named it, and H2 and
 * PostgreSQL name it differently.
 */
public final class VerifiedDomains implements JavaMigration {
    @Override
    public MigrationVersion getVersion() { return MigrationVersion.fromVersion("111"); }

    @Override
    public String getDescription() { return "verified domains unique, claims not"; }

    @Override
    public Integer getChecksum() { return 111_001; }

    @Override
    public boolean canExecuteInTransaction() { return true; }

    @Override
    public void migrate(Context context) throws Exception {
        Connection c = context.getConnection();
        try (Statement s = c.createStatement()) {
            for (String name : uniqueConstraintsOnDomain(c)) s.execute("ALTER TABLE projects DROP CONSTRAINT \"" + name + "\"");
            s.execute("ALTER TABLE projects ADD COLUMN verified_domain VARCHAR(253)");
            s.execute("CREATE UNIQUE INDEX projects_verified_domain ON projects(verified_domain)");
            s.execute("CREATE INDEX projects_domain ON projects(domain)");
            s.execute("UPDATE projects SET verified_domain = domain WHERE domain IS NOT NULL AND domain_status = 'verified'");
        }
    }

    private static List<String> uniqueConstraintsOnDomain(Connection c) throws SQLException {
        List<String> names = new ArrayList<>();
        try (Statement s = c.createStatement(); var rs = s.executeQuery("""
                SELECT tc.constraint_name FROM information_schema.table_constraints tc
                JOIN information_schema.key_column_usage k
                  ON k.constraint_name = tc.constraint_name AND k.constraint_schema = tc.constraint_schema
                WHERE tc.constraint_type = 'UNIQUE' AND LOWER(tc.table_name) = 'projects'
                  AND tc.table_schema = CURRENT_SCHEMA AND LOWER(k.column_name) = 'domain'""")) {
            while (rs.next()) names.add(rs.getString(1));
        }
        if (names.isEmpty()) throw new IllegalStateException("no unique constraint on projects.domain to replace");
        return names;
    }
}
