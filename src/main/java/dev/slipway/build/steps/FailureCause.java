package dev.slipway.build.steps;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Picks, from everything a failing command printed, the lines that say why: npm's {@code npm error} /
 * {@code npm ERR!} lines (the first ones: npm prints its usage text after them), pip's {@code ERROR:},
 * Python's exception line, TypeScript's {@code error TS…}, Next's "Build error occurred" and "Failed to
 * compile", Vite's "error during build" and the line after each. Bounded: it keeps at most
 * {@link #MAX} lines whatever the output's size, and the failure reason falls back to the output's tail.
 */
final class FailureCause {
    static final int MAX = 6;
    private static final int MAX_LINE = 300;
    private static final Pattern NPM = Pattern.compile("^npm (error|ERR!) (?!code |errno |syscall |path |workspace |location |command |Lifecycle script|A complete log"
            + "|Log files|\\s*$|Usage|Options|aliases|Run \"npm help|Clean install|npm ci$|\\[|-)");
    private static final Pattern CAUSE = Pattern.compile(
            "^(ERROR: (?!Exception:)|.*\\berror TS\\d+:|Type error:|SyntaxError|.*\\berror during build\\b|\\s*\\[vite\\]"
            + "|(\\w+\\.)*\\w*(Error|Exception)(: |$)|Error: |ModuleNotFoundError|Failed to compile|.*Build error occurred"
            + "|ERR_PNPM_|error (?:An unexpected error|Couldn't|Your lockfile)|YN\\d{4}:.*(?:error|Error|must))");
    /** After these, the next line is the message itself. */
    private static final Pattern HEADING = Pattern.compile("Failed to compile|Build error occurred|error during build");

    private final List<String> lines = new ArrayList<>();
    private boolean takeNext;

    synchronized void offer(String line) {
        if (lines.size() >= MAX) return;
        String l = line.strip();
        if (l.isEmpty()) return;
        boolean cause = NPM.matcher(l).find() || CAUSE.matcher(l).find();
        if (cause || takeNext) {
            String kept = l.length() > MAX_LINE ? l.substring(0, MAX_LINE) + "…" : l;
            if (!lines.contains(kept)) lines.add(kept);
        }
        takeNext = cause && HEADING.matcher(l).find();
    }

    /** The cause lines in the order printed; empty when none matched. */
    synchronized List<String> lines() {
        return List.copyOf(lines);
    }
}
