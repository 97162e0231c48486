package dev.slipway.isolation;

import dev.slipway.core.FileTrees;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A server's claim on its run dir: a lock on {@code .lock} in it, held while the server lives. The lock is
 * a POSIX record lock, which a process loses when it closes any descriptor of the file: this JVM never opens
 * the lock file of a run dir it holds ({@link #HELD}).
 */
final class RunDirLock {
    private static final Logger LOG = LoggerFactory.getLogger(RunDirLock.class);
    private static final String NAME = ".lock";
    /** How often, and how far apart, a claim is tried while another server sweeps the dir. */
    private static final int SWEEP_ATTEMPTS = 20;
    private static final long SWEEP_PAUSE_MS = 50;
    /** Run dirs this JVM's servers hold. */
    private static final Set<Path> HELD = ConcurrentHashMap.newKeySet();

    private final Path dir;
    private final FileChannel channel;
    private final FileLock lock;

    private RunDirLock(Path dir, FileChannel channel, FileLock lock) {
        this.dir = dir;
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Makes the run dir if needed and claims it. Another server's sweep may take a run dir in the moment
     * between its making and its claim (it has no lock yet, so it looks dead): then the dir is made and
     * claimed again, once that sweep is over.
     */
    static RunDirLock hold(Path runDir) throws IOException {
        Path dir = runDir.toAbsolutePath().normalize();
        if (!HELD.add(dir)) {
            // an earlier server of this JVM on the same data dir that was not stopped (tests): it is held
            return new RunDirLock(dir, null, null);
        }
        try {
            for (int attempt = 1; ; attempt++) {
                Files.createDirectories(dir);
                FileChannel channel;
                try {
                    channel = FileChannel.open(dir.resolve(NAME), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                } catch (NoSuchFileException sweptMeanwhile) {
                    if (attempt >= SWEEP_ATTEMPTS) throw sweptMeanwhile;
                    continue;
                }
                FileLock lock;
                try {
                    lock = channel.tryLock();
                } catch (IOException | RuntimeException e) {
                    channel.close();
                    throw e;
                }
                // a sweep holds the lock only while it removes the dir; the lock file it removed is not a claim
                boolean swept = lock == null ? attempt < SWEEP_ATTEMPTS : !Files.exists(dir.resolve(NAME));
                if (!swept) {
                    if (lock == null) LOG.warn("{} is held by another running server with the same data dir", dir);
                    return new RunDirLock(dir, channel, lock);
                }
                channel.close();
                if (attempt >= SWEEP_ATTEMPTS) throw new IOException("could not claim the run dir " + dir);
                sleepBriefly();
            }
        } catch (IOException | RuntimeException e) {
            HELD.remove(dir);
            throw e;
        }
    }

    private static void sleepBriefly() throws IOException {
        try {
            Thread.sleep(SWEEP_PAUSE_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while claiming the run dir", e);
        }
    }

    /** Removes the lock file and releases the lock (the run dir may go after). */
    void release() {
        if (channel == null) return;
        try {
            if (lock != null) Files.deleteIfExists(dir.resolve(NAME));
            channel.close(); // releases the lock
        } catch (IOException e) {
            LOG.debug("releasing the run dir lock: {}", e.toString());
        } finally {
            HELD.remove(dir);
        }
    }

    /**
     * Runs {@code sweep} when no live server holds {@code dir}'s lock, then removes the dir; does nothing
     * when one does (in this JVM or another process).
     */
    static void ifDead(Path dir, Runnable sweep) {
        Path d = dir.toAbsolutePath().normalize();
        if (HELD.contains(d)) return;
        try (FileChannel channel = FileChannel.open(d.resolve(NAME), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            FileLock lock = channel.tryLock();
            if (lock == null) return;
            sweep.run();
            FileTrees.delete(d);
        } catch (IOException | RuntimeException e) {
            LOG.warn("could not sweep the run dir {}: {}", d, e.toString());
        }
    }
}
