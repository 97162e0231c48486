package dev.slipway.client.runs;

import dev.slipway.client.context.Context;
import dev.slipway.client.context.UsageException;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The parsers of the run commands' options: env pairs and database specs. */
class ParsingTest {
    @Test
    void envPairs() {
        assertThat(EnvPairs.parse(List.of("A=1", "B_2=x=y", "EMPTY="))).isEqualTo(Map.of("A", "1", "B_2", "x=y", "EMPTY", ""));
        for (String bad : List.of("A", "=1", "1A=2", "A-B=1")) {
            assertThatThrownBy(() -> EnvPairs.parse(List.of(bad))).as(bad).isInstanceOf(UsageException.class);
        }
    }

    @Test
    void databaseSpecs() {
        Context ctx = new Context(Map.of("SLIPWAY_DATABASE_SERVICE_KEY", "svc-key"), System.out, System.err, false);
        assertThat(DatabaseOption.parse("type=postgres,action=create", ctx).toString())
                .isEqualTo("{\"type\":\"postgres\",\"action\":\"create\"}");
        assertThat(DatabaseOption.parse("type=postgres,action=connect,url=postgres://h/db?a=1,b=2", ctx).toString())
                .isEqualTo("{\"type\":\"postgres\",\"action\":\"connect\",\"url\":\"postgres://h/db?a=1,b=2\",\"service_key\":\"svc-key\"}");
        for (String bad : List.of("postgres", "type=postgres", "type=postgres,action=drop", "type=postgres,action=connect",
                "type=postgres,action=create,url=x", "type=postgres,type=mysql,action=create")) {
            assertThatThrownBy(() -> DatabaseOption.parse(bad, ctx)).as(bad).isInstanceOf(UsageException.class);
        }
    }
}
