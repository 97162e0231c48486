package dev.slipway.backup;

import dev.slipway.core.Json;

import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/**
 * The store names each build by its absolute path (an artifact's folder, its static root, the tools and start
 * command under the data dir, and the same in each app it says should run): a backup restored into another data dir
 * has those paths moved there, in one transaction.
 */
final class Relocation {
    private Relocation() {}

    /** @return how many builds were moved */
    static int run(String jdbcUrl, String from, String to) throws IOException {
        if (from.equals(to)) return 0;
        String a = from + "/";
        String b = to + "/";
        try (Connection c = DriverManager.getConnection(jdbcUrl)) {
            c.setAutoCommit(false);
            int moved = 0;
            for (String column : List.of("root", "static_root")) {
                try (PreparedStatement p = c.prepareStatement("UPDATE artifacts SET " + column + " = CONCAT(?, SUBSTRING("
                        + column + " FROM ?)) WHERE LEFT(" + column + ", ?) = ?")) {
                    p.setString(1, b);
                    p.setInt(2, a.length() + 1);
                    p.setInt(3, a.length());
                    p.setString(4, a);
                    int n = p.executeUpdate();
                    if (column.equals("root")) moved = n;
                }
            }
            // JSON: a path is a string that starts with the old data dir (the artifacts' lists, and each app the store
            // says should run, which names its build whole)
            for (String table : List.of("artifacts.start_command", "artifacts.tools", "runtime_instances.artifact")) {
                String column = table.substring(table.indexOf('.') + 1);
                try (PreparedStatement p = c.prepareStatement("UPDATE " + table.substring(0, table.indexOf('.')) + " SET " + column
                        + " = REPLACE(" + column + ", ?, ?) WHERE " + column + " IS NOT NULL")) {
                    p.setString(1, quoted(a));
                    p.setString(2, quoted(b));
                    p.executeUpdate();
                }
            }
            c.commit();
            return moved;
        } catch (SQLException e) {
            throw new IOException("the builds' paths could not be moved from " + from + " to " + to + ": " + e.getMessage(), e);
        }
    }

    /** The opening of a JSON string holding {@code prefix}: its quote and its characters as JSON escapes them. */
    private static String quoted(String prefix) throws IOException {
        String json = Json.MAPPER.writeValueAsString(prefix);
        return json.substring(0, json.length() - 1);
    }
}
