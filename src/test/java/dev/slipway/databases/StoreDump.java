package dev.slipway.databases;

import javax.sql.DataSource;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Everything in a store as text (every row of every table), and every file under a data dir. */
final class StoreDump {
    private StoreDump() {}

    static String text(DataSource store) throws SQLException {
        StringBuilder out = new StringBuilder();
        try (Connection c = store.getConnection()) {
            List<String> tables = new ArrayList<>();
            try (ResultSet rs = c.getMetaData().getTables(null, null, "%", new String[]{"TABLE"})) {
                while (rs.next()) {
                    String schema = rs.getString("TABLE_SCHEM");
                    if (schema != null && schema.equalsIgnoreCase("public")) tables.add(schema + "." + rs.getString("TABLE_NAME"));
                }
            }
            if (tables.isEmpty()) throw new IllegalStateException("no tables found in the store");
            for (String table : tables) {
                out.append("-- ").append(table).append('\n');
                try (var s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT * FROM " + table)) {
                    int n = rs.getMetaData().getColumnCount();
                    while (rs.next()) {
                        for (int i = 1; i <= n; i++) out.append(rs.getString(i)).append('|');
                        out.append('\n');
                    }
                }
            }
        }
        return out.toString();
    }

    /**
     * Every regular file under the data dir with its bytes. A file or folder removed while the walk reads it (a
     * finished build's workspace, removed after its deployment completed) holds nothing at rest and is left out.
     */
    static Map<Path, byte[]> files(Path dataDir) throws IOException {
        Map<Path, byte[]> out = new LinkedHashMap<>();
        Files.walkFileTree(dataDir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                if (attrs.isRegularFile()) {
                    try {
                        out.put(file, Files.readAllBytes(file));
                    } catch (NoSuchFileException gone) {
                        // removed since it was listed
                    }
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) return FileVisitResult.CONTINUE;
                throw e;
            }
        });
        return out;
    }
}
