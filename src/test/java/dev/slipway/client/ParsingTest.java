package dev.slipway.client;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The client's small parsers: durations, env pairs, API addresses, database specs, event streams. */
class ParsingTest {
    @Test
    void durations() {
        assertThat(Durations.parse("--timeout", "90")).isEqualTo(Duration.ofSeconds(90));
        assertThat(Durations.parse("--timeout", "2s")).isEqualTo(Duration.ofSeconds(2));
        assertThat(Durations.parse("--timeout", "15m")).isEqualTo(Duration.ofMinutes(15));
        assertThat(Durations.parse("--timeout", "1h30m")).isEqualTo(Duration.ofMinutes(90));
        assertThat(Durations.parse("--timeout", "PT20M")).isEqualTo(Duration.ofMinutes(20));
        for (String bad : List.of("", "0", "0s", "-5s", "5x", "m", "1.5m", "PT-1M")) {
            assertThatThrownBy(() -> Durations.parse("--timeout", bad)).as(bad).isInstanceOf(UsageException.class);
        }
        assertThat(Durations.format(Duration.ofSeconds(125))).isEqualTo("2m5s");
        assertThat(Durations.format(Duration.ofMinutes(15))).isEqualTo("15m");
    }

    @Test
    void envPairs() {
        assertThat(EnvPairs.parse(List.of("A=1", "B_2=x=y", "EMPTY="))).isEqualTo(Map.of("A", "1", "B_2", "x=y", "EMPTY", ""));
        for (String bad : List.of("A", "=1", "1A=2", "A-B=1")) {
            assertThatThrownBy(() -> EnvPairs.parse(List.of(bad))).as(bad).isInstanceOf(UsageException.class);
        }
    }

    @Test
    void apiAddresses() {
        assertThat(ClientConfig.base("http://127.0.0.1:8080").toString()).isEqualTo("http://127.0.0.1:8080/v1");
        assertThat(ClientConfig.base("http://127.0.0.1:8080/").toString()).isEqualTo("http://127.0.0.1:8080/v1");
        assertThat(ClientConfig.base("https://deploy.example.com/slipway/v1/").toString()).isEqualTo("https://deploy.example.com/slipway/v1");
        for (String bad : List.of("127.0.0.1:8080", "ftp://x", "http://", "http://x/?a=b")) {
            assertThatThrownBy(() -> ClientConfig.base(bad)).as(bad).isInstanceOf(UsageException.class);
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

    @Test
    void eventStreams() throws Exception {
        String stream = ": comment\n\nid: l1\nevent: log\ndata: {\"message\":\"a\"}\n\nid: l2\nevent: log\ndata: line1\ndata: line2\n\n"
                + "event: end\ndata: {}\n\nevent: log\ndata: after the end\n\n";
        List<EventStream.Event> events = new ArrayList<>();
        boolean ended = EventStream.read(new ByteArrayInputStream(stream.getBytes(StandardCharsets.UTF_8)), e -> {
            events.add(e);
            return !e.type().equals("end");
        });
        assertThat(ended).isTrue();
        assertThat(events).containsExactly(new EventStream.Event("l1", "log", "{\"message\":\"a\"}"),
                new EventStream.Event("l2", "log", "line1\nline2"), new EventStream.Event(null, "end", "{}"));
        boolean cut = EventStream.read(new ByteArrayInputStream("id: l1\nevent: log\ndata: x\n\nid: l2\nevent: lo".getBytes()), e -> true);
        assertThat(cut).isFalse();
    }
}
