package dev.slipway.runtime.local;

import java.util.ArrayDeque;
import java.util.List;

/** The last lines an app printed, for the message of a failed start. */
final class OutputTail {
    private final int capacity;
    private final ArrayDeque<String> lines = new ArrayDeque<>();

    OutputTail(int capacity) {
        this.capacity = capacity;
    }

    synchronized void add(String line) {
        if (lines.size() == capacity) lines.removeFirst();
        lines.addLast(line);
    }

    synchronized List<String> lines() {
        return List.copyOf(lines);
    }
}
