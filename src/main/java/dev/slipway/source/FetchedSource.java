package dev.slipway.source;

import java.nio.file.Path;

/**
 * A checked-out commit, without its {@code .git}.
 *
 * @param commitSha     the full 40-hex sha
 * @param commitMessage the full message, trimmed, at most {@link #MAX_MESSAGE} characters
 */
public record FetchedSource(Path dir, String commitSha, String commitMessage, String branch) {
    public static final int MAX_MESSAGE = 1000;

    public String shortSha() {
        return commitSha.substring(0, 7);
    }

    /** The first line of the message, for log lines and summaries. */
    public String title() {
        int nl = commitMessage.indexOf('\n');
        return nl < 0 ? commitMessage : commitMessage.substring(0, nl).trim();
    }
}
