package dev.slipway.build.node;

import dev.slipway.build.BuildException;
import dev.slipway.build.steps.Steps;
import dev.slipway.logs.LogSink;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Starts a built Node app once inside the build's cell, as the runtime will start it ($PORT, its working
 * directory, its start command), and waits for an HTTP answer below 500, like the runtime's health check.
 * The probe is a script of the platform's, kept in a folder of the server's that the cell sees read-only:
 * never written into the tenant's tree.
 */
final class StartCheck {
    static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final String SCRIPT = "start-check.cjs";
    private static final String REPORT = "slipway-start-check: ";

    private StartCheck() {}

    /** Why a start failed, as the check script reports it ({@code slipway-start-check: <kind>: <why>}). */
    enum Kind {
        /** It ended before it answered: a missing module does that at once. */
        EXITED,
        /** It listens, but not on $PORT: no prune or retry changes that. */
        WRONG_PORT,
        NO_ANSWER,
        ERROR
    }

    /** @param why "it exited with code 1 before it answered HTTP", "it listens on port 3000, not on $PORT (…)…" */
    record Failure(Kind kind, String why) {
        /** As a build failure: "the app listens on …". */
        String ofTheApp() {
            return "the app " + why.replaceFirst("^it ", "");
        }
    }

    /** Empty when the app answered; else why it did not. */
    static Optional<Failure> run(Steps steps, Path app, List<String> start, Path scriptDir, LogSink log) {
        Path script = install(scriptDir);
        List<String> argv = new ArrayList<>(List.of("node", script.toString(), Long.toString(TIMEOUT.toMillis())));
        argv.addAll(start);
        List<Path> readOnly = new ArrayList<>(steps.confine() == null ? List.of() : steps.confine().readOnly());
        readOnly.add(scriptDir);
        Steps checking = new Steps(steps.runner(), withoutDatabase(steps.env()), steps.secrets(), TIMEOUT.plusSeconds(30),
                steps.confine() == null ? null : steps.confine().withReadOnly(readOnly).withoutDatabase());
        try {
            checking.attempt(argv, app, log);
            return Optional.empty();
        } catch (BuildException e) {
            return Optional.of(e.lastLines().reversed().stream().filter(l -> l.contains(REPORT)).findFirst()
                    .map(l -> report(l.substring(l.indexOf(REPORT) + REPORT.length()).strip()))
                    .orElse(new Failure(Kind.ERROR, "the start check failed: " + e.getMessage())));
        }
    }

    /** {@code <kind>: <why>} as the script writes it. */
    static Failure report(String line) {
        int colon = line.indexOf(": ");
        String kind = colon < 0 ? "" : line.substring(0, colon).toUpperCase(Locale.ROOT).replace('-', '_');
        for (Kind k : Kind.values()) {
            if (k.name().equals(kind)) return new Failure(k, line.substring(colon + 2));
        }
        return new Failure(Kind.ERROR, line);
    }

    /**
     * The app's environment less its database: an app that migrates or seeds its database when it starts must
     * not do so for a trial start in the build (nor can it: the check's cell gets no forward to the database).
     * One that cannot start without it keeps its dev dependencies.
     */
    static Map<String, String> withoutDatabase(Map<String, String> env) {
        Map<String, String> less = new HashMap<>(env);
        less.remove("DATABASE_URL");
        return less;
    }

    /** The script, written (again) into the server's own folder, readable by every project's uid. */
    private static Path install(Path dir) {
        try (InputStream in = StartCheck.class.getResourceAsStream("/build/" + SCRIPT)) {
            if (in == null) throw new IllegalStateException(SCRIPT + " is missing from the server's resources");
            Files.createDirectories(dir);
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
            Path script = dir.resolve(SCRIPT);
            Files.write(script, in.readAllBytes());
            Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rw-r--r--"));
            return script;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the start check", e);
        }
    }
}
