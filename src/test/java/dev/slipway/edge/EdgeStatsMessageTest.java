package dev.slipway.edge;

import dev.slipway.router.RequestLog;
import dev.slipway.router.RequestStats;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A separate edge's request counts and latencies reach the server whole (the message carries every count and the
 * histogram), and so do its request log's lines, in order.
 */
class EdgeStatsMessageTest {
    @Test
    void theEdgesRequestStatsSurviveTheirMessage() throws Exception {
        RequestStats edge = new RequestStats();
        for (int i = 0; i < 90; i++) edge.record(4100, 200, 10, 2_000_000);
        for (int i = 0; i < 10; i++) edge.record(4100, 503, 5, 40_000_000);
        edge.record(4200, 404, 0, 1_000_000);
        var sent = EdgeMessages.stats(edge.drain());

        RequestStats server = new RequestStats();
        EdgeMessages.statsOf(dev.slipway.core.Json.MAPPER.readTree(sent.toString())).forEach(server::add); // as the channel sends it
        Map<Integer, RequestStats.Interval> got = server.drain();
        assertThat(got.get(4100).requests()).isEqualTo(100);
        assertThat(got.get(4100).errors5xx()).isEqualTo(10);
        assertThat(got.get(4100).classes()[2]).isEqualTo(90);
        assertThat(got.get(4100).bytes()).isEqualTo(950);
        assertThat(got.get(4100).latency().getTotalCount()).isEqualTo(100);
        assertThat(got.get(4100).latency().getValueAtPercentile(95) / 1000).isBetween(39L, 41L);
        assertThat(got.get(4200).classes()[4]).isEqualTo(1);
        assertThat(server.drain()).as("taken once").isEmpty();
    }

    @Test
    void theEdgesRequestLogLinesSurviveTheirMessageInOrder() throws Exception {
        RequestLog edge = new RequestLog();
        edge.record(new RequestLog.Line(1_795_770_000_000L, 4100, "GET", "/a", 200, 1500, 12, "203.0.113.7"));
        edge.record(new RequestLog.Line(1_795_770_000_001L, 4100, "BREW", "/pot\u001b[2J", 418, 9, 0, "2001:db8::1"));
        var sent = EdgeMessages.requests(edge.drain());

        RequestLog server = new RequestLog();
        EdgeMessages.requestsOf(dev.slipway.core.Json.MAPPER.readTree(sent.toString())).forEach(server::record);
        assertThat(server.drain()).containsExactly(
                new RequestLog.Line(1_795_770_000_000L, 4100, "GET", "/a", 200, 1500, 12, "203.0.113.7"),
                new RequestLog.Line(1_795_770_000_001L, 4100, "BREW", "/pot\u001b[2J", 418, 9, 0, "2001:db8::1"));
        assertThat(EdgeMessages.requestsOf(dev.slipway.core.Json.MAPPER.readTree("{\"op\":\"requests\",\"lines\":[[1,2],\"x\"]}")))
                .as("lines of another shape are skipped").isEmpty();
    }
}
