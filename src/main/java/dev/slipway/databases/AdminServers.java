package dev.slipway.databases;

import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;

/**
 * The servers the operator lets Slipway create databases on ({@code SLIPWAY_POSTGRES_ADMIN_URL},
 * {@code SLIPWAY_MYSQL_ADMIN_URL}): an admin user that may create databases and users.
 */
public final class AdminServers {
    private final Map<DbKind, DbAddress> admins = new EnumMap<>(DbKind.class);

    /** Either URL may be null or blank (that provider is not configured); a malformed one is refused naming its setting. */
    public static AdminServers of(String postgresAdminUrl, String mysqlAdminUrl) {
        AdminServers s = new AdminServers();
        s.add(DbKind.POSTGRES, postgresAdminUrl);
        s.add(DbKind.MYSQL, mysqlAdminUrl);
        return s;
    }

    private void add(DbKind kind, String url) {
        if (url == null || url.isBlank()) return;
        DbAddress a;
        try {
            a = DbAddress.parse(url);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(kind.adminSetting() + " " + e.getMessage());
        }
        if (a.kind() != kind) throw new IllegalArgumentException(kind.adminSetting() + " must be a " + kind.label() + " URL");
        if (a.user() == null) throw new IllegalArgumentException(kind.adminSetting() + " must name the admin user (user@host or ?user=)");
        admins.put(kind, a);
    }

    public Optional<DbAddress> admin(DbKind kind) {
        return Optional.ofNullable(admins.get(kind));
    }

    public boolean configured(DbKind kind) {
        return admins.containsKey(kind);
    }
}
