package dev.slipway.store;

import dev.slipway.accounts.AccountStore;
import dev.slipway.accounts.Tier;
import dev.slipway.core.MicrosClock;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.TestStore;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Migrations expand, then contract: a release only adds to the schema (tables, nullable columns, columns with a
 * default, indexes), so the release before it runs on its schema, and an upgrade that goes wrong is undone by
 * starting the previous version. What a release takes away (a column, a table, a rename, a narrower type) goes in
 * a later release, once no running version reads it, and is listed in {@link #CONTRACTS} with the reason.
 */
@EachStore
class SchemaCompatibilityTest {
    /** Every migration up to this version predates the rule. */
    private static final int RULE_SINCE = 117;
    /** Contracting migrations, by file name, with what they take away and the release that stopped using it. */
    private static final Map<String, String> CONTRACTS = Map.of();
    /** Migrations that change a column's type only to widen it (the previous version reads and writes it as before). */
    private static final Map<String, String> WIDENS = Map.of(
            "V119__env_var_changes.sql", "project_env_vars.value_enc from VARCHAR(8000) to VARCHAR(64000)");
    private static final List<Pattern> TAKES_AWAY = List.of(
            Pattern.compile("\\bDROP\\s+(TABLE|COLUMN|CONSTRAINT|VIEW)\\b"),
            Pattern.compile("\\bRENAME\\b"),
            Pattern.compile("\\bALTER\\s+COLUMN\\b[^;]*\\b(TYPE|SET\\s+NOT\\s+NULL|SET\\s+DATA\\s+TYPE)\\b"),
            Pattern.compile("\\bADD\\s+(COLUMN\\s+)?[a-z_0-9\"]+\\s+[^;,]*\\bNOT\\s+NULL\\b(?![^;,]*\\bDEFAULT\\b)"));
    private static final Pattern VERSION = Pattern.compile("^V(\\d+)__.*\\.sql$");

    private final Dialect kind;

    @TempDir
    Path future;

    SchemaCompatibilityTest(Dialect kind) {
        this.kind = kind;
    }

    @Test
    void thisVersionRunsOnTheSchemaOfTheNextWhenItOnlyAdded() throws IOException {
        Files.writeString(future.resolve("V9000__next_release.sql"), """
                ALTER TABLE accounts ADD COLUMN next_release_note VARCHAR(100);
                CREATE TABLE next_release_things (id VARCHAR(40) PRIMARY KEY, made_at TIMESTAMP WITH TIME ZONE);
                """);
        try (TestStore store = TestStore.create(kind)) {
            try (Database current = Database.open(store.jdbcUrl(), 2)) {
                Flyway.configure().dataSource(current.dataSource())
                        .locations("classpath:db/migration", "filesystem:" + future.toAbsolutePath())
                        .javaMigrations(Database.javaMigrations())
                        .load().migrate();
            }
            // the next release has migrated the store; this version starts on it, reads and writes
            try (Database previous = Database.open(store.jdbcUrl(), 2)) {
                AccountStore accounts = new AccountStore(previous.jdbi(), MicrosClock.system());
                var made = accounts.create("n-minus-one", Tier.FREE, null);
                assertThat(accounts.find(made.id())).isPresent();
                int applied = previous.jdbi().withHandle(h -> h.createQuery(
                        "SELECT COUNT(*) FROM flyway_schema_history WHERE version = '9000'").mapTo(Integer.class).one());
                assertThat(applied).as("the next release's migration stays applied").isOne();
            }
        }
    }

    @Test
    void newMigrationsOnlyAddUnlessListedAsContracts() throws Exception {
        Path dir = Path.of("src/main/resources/db/migration");
        List<String> offending = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.sorted().toList()) {
                Matcher v = VERSION.matcher(f.getFileName().toString());
                if (!v.matches() || Integer.parseInt(v.group(1)) <= RULE_SINCE || CONTRACTS.containsKey(f.getFileName().toString())
                        || WIDENS.containsKey(f.getFileName().toString())) continue;
                String sql = Files.readString(f).replaceAll("--[^\\n]*", "").toUpperCase(Locale.ROOT);
                for (Pattern p : TAKES_AWAY) {
                    Matcher m = Pattern.compile(p.pattern(), Pattern.CASE_INSENSITIVE).matcher(sql);
                    if (m.find()) offending.add(f.getFileName() + ": " + m.group());
                }
            }
        }
        assertThat(offending).as("migrations that take away what the previous release reads (see the class's comment)").isEmpty();
        assertThat(takesAway("ALTER TABLE x ADD COLUMN y VARCHAR(10) NOT NULL")).as("the guard sees a NOT NULL without default").isTrue();
        assertThat(takesAway("ALTER TABLE x ADD COLUMN y VARCHAR(10) NOT NULL DEFAULT 'a'")).isFalse();
        assertThat(takesAway("ALTER TABLE x DROP COLUMN y")).isTrue();
        assertThat(takesAway("CREATE TABLE t (id VARCHAR(40) NOT NULL PRIMARY KEY)")).isFalse();
    }

    private static boolean takesAway(String sql) {
        return TAKES_AWAY.stream().anyMatch(p -> Pattern.compile(p.pattern(), Pattern.CASE_INSENSITIVE).matcher(sql).find());
    }
}
