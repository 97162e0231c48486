package dev.slipway.config;

import dev.slipway.core.Setting;

/**
 * The admin servers where {@code database.action: create} makes databases.
 *
 * @param postgresUrl a PostgreSQL server (JDBC or postgres:// URL); null: that provider is not configured
 * @param mysqlUrl    the same for MySQL/MariaDB
 */
public record DatabaseAdminSettings(String postgresUrl, String mysqlUrl) {
    public static final Setting POSTGRES_URL = Setting.flag("--postgres-admin-url", "SLIPWAY_POSTGRES_ADMIN_URL", "none",
            "a PostgreSQL server (JDBC URL of a user that may create roles and databases) for "
                    + "`database: {type: postgres, action: create}`");
    public static final Setting MYSQL_URL = Setting.flag("--mysql-admin-url", "SLIPWAY_MYSQL_ADMIN_URL", "none",
            "the same for MySQL/MariaDB");

    /** Never shows the URLs: they may carry passwords. */
    @Override
    public String toString() {
        return "DatabaseAdminSettings[postgres=" + (postgresUrl == null ? "unset" : "****")
                + ", mysql=" + (mysqlUrl == null ? "unset" : "****") + "]";
    }
}
