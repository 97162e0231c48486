package dev.slipway.client.lists;

import picocli.CommandLine.Option;

/** {@code --limit} and {@code --all} of the list commands. */
final class ListOptions {
    @Option(names = "--limit", paramLabel = "N", description = "Page size, 1-100 (default: 20; 100 with --all)")
    Integer limit;

    @Option(names = "--all", description = "Every page, following the cursors")
    boolean all;
}
