package dev.slipway.runtime.local;

import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;

/**
 * Where a running app's output goes: its deployment's log, until a rollback or promotion to it makes another
 * deployment the one that serves it; from then on, that deployment's log, where whoever follows production looks.
 */
final class OutputLog implements LogSink {
    private volatile LogSink to;

    OutputLog(LogSink to) {
        this.to = to;
    }

    void to(LogSink next) {
        to = next;
    }

    @Override
    public void log(Level level, String message) {
        to.log(level, message);
    }
}
