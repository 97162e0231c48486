package dev.slipway.dashboard;

import dev.slipway.dashboard.Html.Safe;
import dev.slipway.projects.Project;
import dev.slipway.usage.UsageSampler;
import dev.slipway.usage.UsageSeries;
import dev.slipway.usage.UsageStore;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * On a project's page, its last hour as four small charts drawn here as SVG (no script, nothing fetched): CPU in cores,
 * memory against its limit, requests and 5xx a minute, and latency p50/p95/p99. Nothing while it has no sample.
 */
public final class UsageGraphs {
    private static final Duration WINDOW = Duration.ofHours(1);
    private static final int STEP = 60;
    private static final int WIDTH = 320;
    private static final int HEIGHT = 90;

    private final UsageStore store;
    private final Clock clock;

    public UsageGraphs(UsageStore store, Clock clock) {
        this.store = store;
        this.clock = clock;
    }

    Safe of(Project p) {
        Instant now = clock.instant();
        Instant from = Instant.ofEpochSecond(now.minus(WINDOW).getEpochSecond() / STEP * STEP);
        var rows = store.read(p.id(), (int) UsageSampler.STEP.toSeconds(), from, now);
        if (rows.isEmpty()) return Html.EMPTY;
        Map<String, UsageSeries.Series> s = UsageSeries.of(rows, from, STEP).stream()
                .collect(Collectors.toMap(UsageSeries.Series::name, Function.identity()));
        long start = from.getEpochSecond();
        long end = now.getEpochSecond();
        return Html.fmt("""
                <h2>Last hour</h2>
                <div class="charts">%s%s%s%s</div>""",
                chart("CPU (cores)", start, end, List.of(scaled(s.get("cpu_seconds"), 1.0 / STEP)), 1),
                chart("Memory (MB) and its limit", start, end, List.of(scaled(s.get("memory_bytes"), 1 / 1048576.0),
                        scaled(s.get("memory_limit_bytes"), 1 / 1048576.0)), 0),
                chart("Requests and 5xx a minute", start, end, List.of(s.get("requests"), s.get("errors_5xx")), 0),
                chart("Latency p50, p95, p99 (ms)", start, end, List.of(s.get("latency_p50_ms"), s.get("latency_p95_ms"),
                        s.get("latency_p99_ms")), 1));
    }

    private static UsageSeries.Series scaled(UsageSeries.Series s, double factor) {
        return new UsageSeries.Series(s.name(), s.unit(), s.points().stream()
                .map(p -> List.<Number>of(p.get(0), p.get(1).doubleValue() * factor)).toList());
    }

    /** A line per series over [start, end], the y axis from 0 to the largest value, which is written beside it. */
    private static Safe chart(String title, long start, long end, List<UsageSeries.Series> lines, int decimals) {
        double max = lines.stream().flatMap(l -> l.points().stream()).mapToDouble(p -> p.get(1).doubleValue()).max().orElse(0);
        double top = max <= 0 ? 1 : max;
        Safe polylines = Html.each(lines, l -> Html.fmt("<polyline class=\"series-%s\" data-series=\"%s\" data-points=\"%s\" points=\"%s\"/>",
                Integer.toString(lines.indexOf(l)), l.name(), Integer.toString(l.points().size()),
                l.points().stream().map(p -> String.format(Locale.ROOT, "%.1f,%.1f",
                        (p.get(0).longValue() - start) * (double) WIDTH / Math.max(1, end - start),
                        HEIGHT - p.get(1).doubleValue() / top * HEIGHT)).collect(Collectors.joining(" "))));
        return Html.fmt("""
                <figure class="chart"><figcaption>%s <span class="max">max %s</span></figcaption>
                <svg viewBox="0 0 %s %s" width="%s" height="%s" role="img" aria-label="%s">
                <line x1="0" y1="%s" x2="%s" y2="%s" class="axis"/>%s</svg></figure>""",
                title, String.format(Locale.ROOT, "%." + decimals + "f", max), Integer.toString(WIDTH), Integer.toString(HEIGHT),
                Integer.toString(WIDTH), Integer.toString(HEIGHT), title, Integer.toString(HEIGHT), Integer.toString(WIDTH),
                Integer.toString(HEIGHT), polylines);
    }
}
