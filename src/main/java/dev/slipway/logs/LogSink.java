package dev.slipway.logs;

/**
 * Where the engine writes what happens, line by line, as it happens: build output, app start-up,
 * crashes. Implementations must be thread-safe (stdout and stderr readers call concurrently) and
 * must never receive a secret in clear: callers mask env values first.
 */
@FunctionalInterface
public interface LogSink {
    void log(Level level, String message);

    LogSink DISCARD = (level, message) -> { };
}
