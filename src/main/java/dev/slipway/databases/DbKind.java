package dev.slipway.databases;

import java.util.Locale;
import java.util.Optional;

/** The two database providers: the value of {@code database.type}, its URL schemes, JDBC prefix and admin setting. */
public enum DbKind {
    POSTGRES("postgres", 5432, "jdbc:postgresql://", "SLIPWAY_POSTGRES_ADMIN_URL"),
    MYSQL("mysql", 3306, "jdbc:mariadb://", "SLIPWAY_MYSQL_ADMIN_URL");

    private final String label;
    private final int defaultPort;
    private final String jdbcPrefix;
    private final String adminSetting;

    DbKind(String label, int defaultPort, String jdbcPrefix, String adminSetting) {
        this.label = label;
        this.defaultPort = defaultPort;
        this.jdbcPrefix = jdbcPrefix;
        this.adminSetting = adminSetting;
    }

    public String label() { return label; }
    public int defaultPort() { return defaultPort; }
    String jdbcPrefix() { return jdbcPrefix; }
    /** The environment variable that names this provider's admin server. */
    public String adminSetting() { return adminSetting; }

    public static Optional<DbKind> parse(String label) {
        for (DbKind k : values()) if (k.label.equals(label)) return Optional.of(k);
        return Optional.empty();
    }

    /** The kind a URL scheme names: postgres, postgresql, mysql, mariadb (each also after {@code jdbc:}). */
    static Optional<DbKind> ofScheme(String scheme) {
        return switch (scheme.toLowerCase(Locale.ROOT)) {
            case "postgres", "postgresql" -> Optional.of(POSTGRES);
            case "mysql", "mariadb" -> Optional.of(MYSQL);
            default -> Optional.empty();
        };
    }
}
