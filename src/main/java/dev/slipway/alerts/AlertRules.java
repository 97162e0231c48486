package dev.slipway.alerts;

/**
 * A project's alert rules. A rule's condition must hold in every sample for {@code minutes} before its incident
 * opens (0: at the first sample that shows it), and the incident resolves at the first sample where it no longer holds.
 *
 * @param errorRate  5xx answers over a share of the requests; never null (the default when the project set none)
 * @param latencyP95 the p95 latency over a limit; null: no such rule
 */
public record AlertRules(ErrorRate errorRate, LatencyP95 latencyP95) {
    public static final AlertRules DEFAULT = new AlertRules(ErrorRate.DEFAULT, null);

    public AlertRules {
        if (errorRate == null) errorRate = ErrorRate.DEFAULT;
    }

    /** At least {@code abovePercent} % of the requests answered 5xx, in samples of {@code minRequests} or more. */
    public record ErrorRate(int abovePercent, int forMinutes, int minRequests) {
        public static final ErrorRate DEFAULT = new ErrorRate(50, 0, 10);

        boolean firing(long requests, long errors) {
            return requests >= minRequests && errors * 100 >= (long) abovePercent * requests;
        }
    }

    /** The p95 of a sample's request latencies above {@code aboveMs}. */
    public record LatencyP95(int aboveMs, int forMinutes) {}
}
