package dev.slipway.testing;

import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/** A LogSink that keeps every entry, with the time it arrived, for assertions; a test can wait for one. */
public final class RecordingLog implements LogSink {
    /** An entry; two are equal by level and message, whenever they arrived. */
    public record Entry(long nanos, Level level, String message) {
        public Entry(Level level, String message) {
            this(0, level, message);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Entry e && level == e.level && message.equals(e.message);
        }

        @Override
        public int hashCode() { return Objects.hash(level, message); }

        @Override
        public String toString() { return level.label() + " " + message; }
    }

    private final List<Entry> entries = new ArrayList<>();

    @Override
    public synchronized void log(Level level, String message) {
        entries.add(new Entry(System.nanoTime(), level, message));
    }

    public synchronized List<Entry> entries() {
        return List.copyOf(entries);
    }

    public List<String> messages() {
        return entries().stream().map(Entry::message).toList();
    }

    public String text() {
        return entries().stream().map(Entry::toString).collect(Collectors.joining("\n"));
    }

    public Optional<Entry> first(Predicate<Entry> p) {
        return entries().stream().filter(p).findFirst();
    }

    public List<Entry> all(Predicate<Entry> p) {
        return entries().stream().filter(p).toList();
    }

    public Entry await(Duration timeout, String what, Predicate<Entry> p) {
        return Await.value(timeout, what + " in the log " + messages(), () -> first(p).orElse(null));
    }

    /** The pid the test app prints at start ("starting version v pid N"), the n-th time (0-based). */
    public long printedPid(int n) {
        List<Entry> starts = all(e -> e.message().startsWith("starting version "));
        String m = starts.get(n).message();
        return Long.parseLong(m.substring(m.lastIndexOf(' ') + 1));
    }
}
