package dev.slipway.client.logs;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Server-sent event streams, as the log follower reads them. */
class ParsingTest {
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
