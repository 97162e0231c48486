package dev.slipway.appconfig;

import com.cronutils.model.Cron;
import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** A 5-field cron expression (minute hour day-of-month month day-of-week) in a time zone, read by cron-utils. */
public final class Schedule {
    private static final CronParser PARSER = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));
    /** An expression with no time within this many years never fires ({@code 0 0 31 2 *}). */
    private static final int HORIZON_YEARS = 5;

    private final String expression;
    private final ZoneId zone;
    private final ExecutionTime times;

    private Schedule(String expression, ZoneId zone, Cron cron) {
        this.expression = expression;
        this.zone = zone;
        this.times = ExecutionTime.forCron(cron);
    }

    /** @throws IllegalArgumentException saying what is wrong, when it is not a 5-field expression that fires */
    public static Schedule parse(String expression, ZoneId zone) {
        Cron cron;
        try {
            cron = PARSER.parse(expression.strip());
            cron.validate();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("is not a 5-field cron expression (" + e.getMessage() + ")");
        }
        Schedule s = new Schedule(expression.strip(), zone, cron);
        ZonedDateTime now = ZonedDateTime.now(zone);
        Optional<ZonedDateTime> next = s.times.nextExecution(now);
        if (next.isEmpty() || next.get().isAfter(now.plusYears(HORIZON_YEARS))) {
            throw new IllegalArgumentException("never fires (no time matches it within " + HORIZON_YEARS + " years)");
        }
        return s;
    }

    public String expression() { return expression; }

    public ZoneId zone() { return zone; }

    /** The last time it fired at or before {@code now}. */
    public Optional<Instant> lastAt(Instant now) {
        // it fires at the start of a minute: this minute's start when it matches, else an earlier one
        ZonedDateTime minute = now.atZone(zone).truncatedTo(ChronoUnit.MINUTES);
        if (times.isMatch(minute)) return Optional.of(minute.toInstant());
        return times.lastExecution(minute).map(ZonedDateTime::toInstant);
    }

    /** The times it fired after {@code from} and before {@code to}, oldest first, at most {@code limit}. */
    public List<Instant> between(Instant from, Instant to, int limit) {
        List<Instant> out = new ArrayList<>();
        ZonedDateTime at = from.atZone(zone);
        while (out.size() < limit) {
            Optional<ZonedDateTime> next = times.nextExecution(at);
            if (next.isEmpty() || !next.get().toInstant().isBefore(to)) break;
            out.add(next.get().toInstant());
            at = next.get();
        }
        return out;
    }

    @Override
    public String toString() {
        return expression + (zone.equals(ZoneId.of("UTC")) ? " (UTC)" : " (" + zone + ")");
    }
}
