package dev.slipway.logs;

import com.fasterxml.jackson.annotation.JsonIgnore;

import java.time.Instant;

/** One line of a migration's or deployment's log; {@code seq} orders entries and is the follow cursor. */
public record LogEntry(@JsonIgnore long seq, Instant timestamp, String level, String message) {
}
