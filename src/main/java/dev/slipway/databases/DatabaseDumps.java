package dev.slipway.databases;

import dev.slipway.core.ExternalTool;
import dev.slipway.secrets.SecretBox;
import org.jdbi.v3.core.Jdbi;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The databases Slipway made for apps, in a backup: each dumped by its own user ({@code pg_dump} or
 * {@code mariadb-dump}, one consistent snapshot), and loaded back into its server, made again by the admin first
 * when it is gone. A database that still has tables is left as it is.
 */
public final class DatabaseDumps {
    /** A dumped database: its id (the file is {@code <id>.sql}) and where it lives. */
    public record Dump(String id, String where) {}

    private record Made(String id, DbAddress address) {}

    private final Jdbi jdbi;
    private final SecretBox secrets;

    public DatabaseDumps(Jdbi jdbi, SecretBox secrets) {
        this.jdbi = jdbi;
        this.secrets = secrets;
    }

    /** Dumps every database Slipway made that is ready into {@code dir}, as {@code <id>.sql}. */
    public List<Dump> dumpAll(Path dir) throws IOException {
        List<Dump> out = new ArrayList<>();
        for (Made m : made(Optional.empty())) {
            DbAddress a = m.address();
            Path file = dir.resolve(m.id() + ".sql");
            if (a.kind() == DbKind.POSTGRES) {
                ExternalTool.run(List.of("pg_dump", "--no-owner", "--no-privileges", "--format=plain", "--file=" + file), libpq(a),
                        null, "apt-get install postgresql-client");
            } else {
                ExternalTool.run(List.of("mariadb-dump", "--single-transaction", "--routines", "--triggers", "--host=" + a.host(),
                        "--port=" + a.port(), "--user=" + a.user(), "--result-file=" + file, a.database()),
                        Map.of("MYSQL_PWD", a.passwordIfAny().orElse("")), null, "apt-get install mariadb-client");
            }
            out.add(new Dump(m.id(), a.kind().label() + "://" + a.where()));
        }
        return out;
    }

    /**
     * Loads the dump of database {@code id}; {@code admins} by kind make it (and its user) again when it is gone.
     * Returns what was done, for people.
     */
    public String load(String id, Path file, Map<DbKind, DbAddress> admins) throws IOException {
        Made m = made(Optional.of(id)).stream().findFirst()
                .orElseThrow(() -> new IOException("the backup has a dump of database " + id + ", which its store does not know"));
        DbAddress a = m.address();
        String made = "";
        Optional<Integer> tables = tables(a);
        if (tables.isEmpty()) {
            DbAddress admin = admins.get(a.kind());
            if (admin == null) {
                throw new IOException("the database " + a.where() + " is gone; set " + a.kind().adminSetting()
                        + " for the restore to make it again");
            }
            try {
                Provisioner.of(a.kind()).ensure(admin, a.database(), a.passwordIfAny().orElseThrow(), Provisioner.Steps.NONE);
            } catch (SQLException e) {
                throw new IOException("cannot make the database " + a.where() + " again: " + e.getMessage(), e);
            }
            made = "made again, ";
        } else if (tables.get() > 0) {
            return a.where() + ": kept as it is (it has " + tables.get() + " table(s))";
        }
        if (a.kind() == DbKind.POSTGRES) {
            ExternalTool.run(List.of("psql", "--quiet", "--no-psqlrc", "-v", "ON_ERROR_STOP=1", "--single-transaction",
                    "--file=" + file), libpq(a), null, "apt-get install postgresql-client");
        } else {
            ExternalTool.run(List.of("mariadb", "--host=" + a.host(), "--port=" + a.port(), "--user=" + a.user(), a.database()),
                    Map.of("MYSQL_PWD", a.passwordIfAny().orElse("")), file, "apt-get install mariadb-client");
        }
        return a.where() + ": " + made + "loaded";
    }

    /** How many tables the database has, as its own user; empty when it cannot be reached (it is gone). */
    private static Optional<Integer> tables(DbAddress a) {
        String sql = a.kind() == DbKind.POSTGRES
                ? "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'public'"
                : "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE()";
        try (Connection c = Connections.open(a); var s = c.createStatement(); var r = s.executeQuery(sql)) {
            r.next();
            return Optional.of(r.getInt(1));
        } catch (SQLException e) {
            return Optional.empty();
        }
    }

    private List<Made> made(Optional<String> id) {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT id, type, host, port, db_name, username, options, secret_enc FROM databases
                        WHERE action = 'create' AND state = 'ready' AND secret_enc IS NOT NULL AND (:all OR id = :id)
                        ORDER BY created_at, id""")
                .bind("all", id.isEmpty()).bind("id", id.orElse(""))
                .map((rs, ctx) -> new Made(rs.getString("id"), new DbAddress(DbKind.parse(rs.getString("type")).orElseThrow(),
                        rs.getString("host"), rs.getInt("port"), rs.getString("db_name"), rs.getString("username"),
                        secrets.decrypt(rs.getString("secret_enc")), DbAddress.parseQuery(rs.getString("options")))))
                .list());
    }

    private static Map<String, String> libpq(DbAddress a) {
        return Map.of("PGHOST", a.host(), "PGPORT", Integer.toString(a.port()), "PGDATABASE", a.database(),
                "PGUSER", a.user(), "PGPASSWORD", a.passwordIfAny().orElse(""));
    }
}
