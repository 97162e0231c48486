package dev.slipway.router;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class RequestLogTest {
    private static final int PORT = 41_000;

    @Test
    void anAppWithinTheBudgetHasEveryRequestLogged() {
        RequestLog log = new RequestLog(100);
        for (int second = 0; second < 3; second++) {
            assertThat(admitted(log, PORT, second, 100, 200)).hasSize(100);
        }
    }

    @Test
    void aBusierAppIsSampledAcrossTheWholeSecondAndNeverAboveTheBudget() {
        RequestLog log = new RequestLog(100);
        // the first busy second: its first hundred requests
        assertThat(admitted(log, PORT, 0, 2_000, 200)).hasSize(100).last().isEqualTo(99);
        // the next: every 20th, spread over the whole second
        List<Integer> kept = admitted(log, PORT, 1, 2_000, 200);
        assertThat(kept).hasSize(100).startsWith(0, 20, 40).endsWith(1_980);
        // busier still: the budget holds
        assertThat(admitted(log, PORT, 2, 10_000, 200)).hasSize(100);
        // quiet again after a gap: every request
        assertThat(admitted(log, PORT, 9, 50, 200)).hasSize(50);
    }

    @Test
    void failuresHaveABudgetOfTheirOwnAndPortsDoNotShareOne() {
        RequestLog log = new RequestLog(100);
        assertThat(admitted(log, PORT, 0, 1_000, 200)).hasSize(100);
        assertThat(admitted(log, PORT, 0, 1_000, 502)).hasSize(100);
        assertThat(admitted(log, PORT + 1, 0, 100, 200)).hasSize(100);
        assertThat(admitted(log, PORT, 0, 10, 404)).isEmpty(); // a 4xx is an answer of the app's, in the first budget
    }

    /** The indexes of {@code n} requests in {@code second} that get a line. */
    private static List<Integer> admitted(RequestLog log, int port, long second, int n, int status) {
        List<Integer> kept = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (log.admits(port, second * 1000 + i * 1000L / n, status)) kept.add(i);
        }
        return kept;
    }
}
