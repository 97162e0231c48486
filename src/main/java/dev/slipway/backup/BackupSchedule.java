package dev.slipway.backup;

import dev.slipway.databases.DatabaseDumps;
import dev.slipway.store.Database;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Makes a backup every {@link BackupSettings#every()} into the folder, named by its UTC time, and keeps the newest
 * {@link BackupSettings#keep()} of them (files of other names are left alone). A failure is logged as an error and
 * kept for {@code /readyz} until a backup succeeds; the next try comes after at most ten minutes.
 */
public final class BackupSchedule implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(BackupSchedule.class);
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmssSSS'Z'").withZone(ZoneOffset.UTC);
    private static final Pattern NAME = Pattern.compile("slipway-(\\d{8}T\\d{9}Z)\\.tar\\.gz");
    private static final Duration RETRY = Duration.ofMinutes(10);

    private final BackupSettings settings;
    private final Database db;
    private final String jdbcUrl;
    private final Path dataDir;
    private final DatabaseDumps databases;
    private final BiConsumer<String, Object> events;
    private final Clock clock;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("scheduled-backups").factory());
    private volatile Instant lastSuccessAt;
    private volatile String lastFile;
    private volatile Instant lastFailureAt;
    private volatile String lastError;
    private volatile Instant nextAt;

    private BackupSchedule(BackupSettings settings, Database db, String jdbcUrl, Path dataDir, DatabaseDumps databases,
                           BiConsumer<String, Object> events, Clock clock) {
        this.settings = settings;
        this.db = db;
        this.jdbcUrl = jdbcUrl;
        this.dataDir = dataDir;
        this.databases = databases;
        this.events = events;
        this.clock = clock;
    }

    /**
     * Started, or null when scheduled backups are off. {@code jdbcUrl}: the PostgreSQL store's, null for H2.
     *
     * @param events gets {@code backup.failed} when backups start to fail (again when the error changes), and {@code backup.recovered} at the first success
     *               after a failure, each with {@link #status()}
     */
    public static BackupSchedule start(BackupSettings settings, Database db, String jdbcUrl, Path dataDir,
                                       DatabaseDumps databases, BiConsumer<String, Object> events, Clock clock) {
        if (!settings.enabled()) return null;
        BackupSchedule s = new BackupSchedule(settings, db, jdbcUrl, dataDir, databases, events, clock);
        Instant newest = s.kept().stream().findFirst().map(BackupSchedule::madeAt).orElse(Instant.MIN);
        Duration wait = newest.equals(Instant.MIN) ? Duration.ZERO : Duration.between(s.clock.instant(), newest.plus(settings.every()));
        s.schedule(wait.isNegative() ? Duration.ZERO : wait);
        return s;
    }

    private void schedule(Duration wait) {
        nextAt = clock.instant().plus(wait);
        timer.schedule(this::run, wait.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void run() {
        Instant at = clock.instant();
        Path file = settings.dir().resolve("slipway-" + STAMP.format(at) + ".tar.gz");
        try {
            if (Files.exists(settings.dir()) && !Files.isDirectory(settings.dir())) {
                throw new IOException(settings.dir() + " is not a folder (" + BackupSettings.DIR.variable() + ")");
            }
            Files.createDirectories(settings.dir());
            Backup.Summary s = Backup.write(db, jdbcUrl, dataDir, databases, file, clock);
            boolean recovered = lastError != null;
            lastSuccessAt = at;
            lastFile = file.toString();
            lastError = null;
            LOG.info("scheduled backup {} made ({} entries, {} bytes)", file, s.manifest().entries().size(), s.bytes());
            prune();
            schedule(settings.every());
            if (recovered) events.accept("backup.recovered", status());
        } catch (IOException | RuntimeException e) {
            String before = lastError;
            lastFailureAt = at;
            lastError = describe(e);
            LOG.error("scheduled backup {} failed: {}", file, lastError);
            schedule(settings.every().compareTo(RETRY) < 0 ? settings.every() : RETRY);
            if (!lastError.equals(before)) events.accept("backup.failed", status());
        }
    }

    /** A file system error's message is often only its path: say what failed. */
    private static String describe(Exception e) {
        if (e instanceof FileSystemException f) {
            return "cannot write " + f.getFile() + ": " + (f.getReason() != null ? f.getReason() : e.getClass().getSimpleName());
        }
        return e.getMessage() == null ? e.toString() : e.getMessage();
    }

    /** The scheduled backups in the folder, newest first. */
    private List<Path> kept() {
        if (!Files.isDirectory(settings.dir())) return List.of();
        try (Stream<Path> files = Files.list(settings.dir())) {
            return files.filter(p -> NAME.matcher(p.getFileName().toString()).matches())
                    .sorted(Comparator.comparing((Path p) -> p.getFileName().toString()).reversed()).toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    private void prune() throws IOException {
        List<Path> files = kept();
        for (Path old : files.subList(Math.min(settings.keep(), files.size()), files.size())) {
            Files.deleteIfExists(old);
            LOG.info("scheduled backup {} deleted: {} newer ones are kept", old, settings.keep());
        }
    }

    private static Instant madeAt(Path file) {
        Matcher m = NAME.matcher(file.getFileName().toString());
        if (!m.matches()) return Instant.MIN;
        return STAMP.parse(m.group(1), Instant::from);
    }

    /** For {@code /readyz}: the last success and the last failure (while no success came after it), and the next try. */
    public Map<String, Object> status() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("status", lastError != null ? "failing" : lastSuccessAt != null ? "ok" : "pending");
        m.put("last_success_at", lastSuccessAt == null ? null : lastSuccessAt.truncatedTo(ChronoUnit.SECONDS).toString());
        m.put("last_file", lastFile);
        if (lastError != null) {
            m.put("last_failure_at", lastFailureAt.truncatedTo(ChronoUnit.SECONDS).toString());
            m.put("last_error", lastError);
        }
        m.put("next_at", nextAt == null ? null : nextAt.truncatedTo(ChronoUnit.SECONDS).toString());
        return m;
    }

    @Override
    public void close() {
        timer.shutdownNow();
        try {
            timer.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
