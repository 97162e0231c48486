package dev.slipway.client.runs;

import dev.slipway.client.context.Deadline;
import dev.slipway.client.context.Durations;
import picocli.CommandLine.Option;

/** {@code --wait}, {@code --follow} and {@code --timeout} of the commands that start a run. */
final class WaitOptions {
    @Option(names = "--wait", description = "Wait for a final state; exit 0 live/complete, 1 failed, 3 timed out")
    boolean wait;

    @Option(names = "--follow", description = "Stream the log as it is written (implies --wait)")
    boolean follow;

    @Option(names = "--timeout", defaultValue = "15m", paramLabel = "DURATION",
            description = "Give up waiting after this (90s, 15m, 1h30m); default: ${DEFAULT-VALUE}")
    String timeout;

    boolean waiting() {
        return wait || follow;
    }

    Deadline deadline() {
        return Deadline.after(Durations.parse("--timeout", timeout));
    }
}
