package dev.slipway.build;

import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/** A LogSink that keeps every entry, for assertions, and lets a test wait for one to arrive. */
final class RecordingLog implements LogSink {
    record Entry(Level level, String message) {
        @Override
        public String toString() { return level.label() + " " + message; }
    }

    private final List<Entry> entries = new ArrayList<>();

    @Override
    public synchronized void log(Level level, String message) {
        entries.add(new Entry(level, message));
        notifyAll();
    }

    synchronized List<Entry> entries() { return List.copyOf(entries); }

    List<String> messages() { return entries().stream().map(Entry::message).toList(); }

    String text() { return entries().stream().map(Entry::toString).collect(Collectors.joining("\n")); }

    synchronized Entry await(Predicate<Entry> condition, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            for (Entry e : entries) if (condition.test(e)) return e;
            long left = deadline - System.nanoTime();
            if (left <= 0) throw new AssertionError("no log entry matched within " + timeout + "; log:\n" + text());
            wait(Math.max(1, left / 1_000_000));
        }
    }
}
