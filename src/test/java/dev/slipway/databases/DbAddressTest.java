package dev.slipway.databases;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Parsing database URLs in every accepted form; errors never repeat a password. */
class DbAddressTest {
    @Test
    void parsesTheUrlFormsAndTheJdbcForms() {
        DbAddress a = DbAddress.parse("postgres://app:p%40ss%2Fw@db.example.com:6543/shop?sslmode=require");
        assertThat(a).isEqualTo(new DbAddress(DbKind.POSTGRES, "db.example.com", 6543, "shop", "app", "p@ss/w",
                Map.of("sslmode", "require")));
        assertThat(a.appUrl()).isEqualTo("postgres://app:p%40ss%2Fw@db.example.com:6543/shop?sslmode=require");
        assertThat(a.jdbcUrl()).isEqualTo("jdbc:postgresql://db.example.com:6543/shop?sslmode=require");
        assertThat(a.toString()).doesNotContain("p@ss");

        DbAddress j = DbAddress.parse("jdbc:postgresql://127.0.0.1/test?user=postgres&password=secret");
        assertThat(j.port()).isEqualTo(5432);
        assertThat(j.user()).isEqualTo("postgres");
        assertThat(j.password()).isEqualTo("secret");
        assertThat(j.params()).isEmpty();

        for (String url : new String[]{"mysql://root@127.0.0.1/app", "mariadb://root@127.0.0.1/app",
                "jdbc:mysql://127.0.0.1/app?user=root", "jdbc:mariadb://127.0.0.1:3306/app?user=root"}) {
            DbAddress m = DbAddress.parse(url);
            assertThat(m.kind()).as(url).isEqualTo(DbKind.MYSQL);
            assertThat(m.port()).isEqualTo(3306);
            assertThat(m.user()).isEqualTo("root");
            assertThat(m.jdbcUrl()).isEqualTo("jdbc:mariadb://127.0.0.1:3306/app");
            assertThat(m.with("app", "root", "a b+c").appUrl()).isEqualTo("mysql://root:a%20b%2Bc@127.0.0.1:3306/app");
        }
        assertThat(DbAddress.parse("postgresql://u@[::1]:5433/d").host()).isEqualTo("[::1]");
        assertThat(DbAddress.parse("mysql://u@h").database()).isNull();
    }

    @Test
    void refusesWhatItCannotUseWithoutRepeatingIt() {
        for (String bad : new String[]{"", "http://u:hunter2@h/d", "hunter2", "postgres://u:hunter2@/d",
                "postgres://u:hunter2@h/a/b", "postgres://u:hun ter2@h/d", "mysql://u:hunter2@h/d?bad name=1",
                "postgres://u:%zzhunter2@h/d"}) {
            assertThatThrownBy(() -> DbAddress.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("hunter2"));
        }
    }

    @Test
    void adminSettingsAreCheckedNamingTheSetting() {
        AdminServers both = AdminServers.of("jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres", "mysql://root@127.0.0.1");
        assertThat(both.configured(DbKind.POSTGRES)).isTrue();
        assertThat(both.configured(DbKind.MYSQL)).isTrue();
        AdminServers none = AdminServers.of(null, " ");
        assertThat(none.configured(DbKind.POSTGRES)).isFalse();
        assertThat(none.configured(DbKind.MYSQL)).isFalse();
        assertThatThrownBy(() -> AdminServers.of("mysql://root:hunter2@h", null))
                .hasMessageContaining("SLIPWAY_POSTGRES_ADMIN_URL").hasMessageNotContaining("hunter2");
        assertThatThrownBy(() -> AdminServers.of(null, "mysql://:hunter2@h"))
                .hasMessageContaining("SLIPWAY_MYSQL_ADMIN_URL").hasMessageContaining("user").hasMessageNotContaining("hunter2");
        assertThatThrownBy(() -> AdminServers.of("not a url hunter2", null))
                .hasMessageContaining("SLIPWAY_POSTGRES_ADMIN_URL").hasMessageNotContaining("hunter2");
    }

    @Test
    void namesComeFromIdsAndNothingElsePassesTheCheck() {
        assertThat(Identifiers.nameFor("db_01kaxyz0123456789abcdefghj")).isEqualTo("slw01kaxyz0123456789abcdefghj");
        for (String bad : new String[]{"slw01kaxyz0123456789abcdefgh\"; DROP", "postgres", "slw_x", "SLW01KAXYZ0123456789ABCDEFGHJ"}) {
            assertThatThrownBy(() -> Identifiers.pg(bad)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> Identifiers.my(bad)).isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(Identifiers.password()).matches("[A-Za-z0-9]{32}").isNotEqualTo(Identifiers.password());
    }
}
