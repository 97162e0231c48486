package dev.slipway.runtime.local;

import dev.slipway.logs.LogSink;
import dev.slipway.logs.Masker;
import dev.slipway.runtime.OutputPump;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * An app's output, as its processes append it to a file of the server's (their stdout and stderr, opened before
 * they start): the file outlives the server, so an app that keeps running while the server is away never writes
 * to a closed pipe, and the next server goes on reading where this one stopped ({@code <file>.offset}).
 * A follower reads what was appended every {@link #POLL}; once it has read everything of a file past
 * {@link #ROTATE_AT}, it empties the file (the writers append, so they go on at its new end; a line written in
 * the moment between the last read and the truncation is lost, as with logrotate's {@code copytruncate}).
 */
final class OutputFile implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(OutputFile.class);
    static final Duration POLL = Duration.ofMillis(100);
    /** Small: the files are kept in memory (the run dir's tmpfs), one per app and worker. */
    static final long ROTATE_AT = 256L * 1024;
    /** How often the offset read so far is saved while reading: what a server killed meanwhile reads twice. */
    private static final long SAVE_EVERY_NANOS = Duration.ofSeconds(1).toNanos();

    private final Path file;
    private final Path offsetFile;
    private final OutputPump lines;
    private final ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
    private final Thread follower;
    /** Open while it is followed: a poll reads, it does not open the file again. */
    private final FileChannel channel;
    // guarded by this
    private long offset;
    private long savedOffset = -1;
    private long savedAt;
    private boolean closed;

    private OutputFile(Path file, long offset, OutputPump lines) throws IOException {
        this.file = file;
        this.offsetFile = offsetFile(file);
        this.offset = offset;
        this.lines = lines;
        this.channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
        this.savedAt = System.nanoTime() - SAVE_EVERY_NANOS; // the first read saves its offset
        this.follower = Thread.ofVirtual().name("output-" + file.getFileName()).unstarted(this::follow);
    }

    /** An empty file for a process about to start, followed from its start. */
    static OutputFile fresh(Path file, LogSink log, Masker mask, Consumer<String> seen) throws IOException {
        Path dir = file.getParent();
        if (!Files.isDirectory(dir)) {
            // what an app prints is its own: only the server reads it (its parent keeps its own mode: the sandbox's
            // run dirs beside it must stay passable)
            Files.createDirectories(dir.getParent());
            try {
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            } catch (FileAlreadyExistsException raced) {
                // a worker's output file, made at the same time
            }
        }
        Files.write(file, new byte[0]); // created or emptied
        Files.deleteIfExists(offsetFile(file));
        OutputFile out = new OutputFile(file, 0, OutputPump.lines(log, mask, seen));
        out.follower.start();
        return out;
    }

    /** The file of a process an earlier server started: followed from where that server stopped reading. */
    static OutputFile resumed(Path file, LogSink log, Masker mask, Consumer<String> seen) throws IOException {
        if (!Files.isRegularFile(file)) return fresh(file, log, mask, seen);
        long offset = 0;
        try {
            offset = Long.parseLong(Files.readString(offsetFile(file)).strip());
        } catch (IOException | NumberFormatException e) {
            // never saved: all of it is new to the log
        }
        if (offset < 0 || offset > Files.size(file)) offset = 0; // emptied since
        OutputFile out = new OutputFile(file, offset, OutputPump.lines(log, mask, seen));
        out.follower.start();
        return out;
    }

    Path path() {
        return file;
    }

    /** Reads what was appended up to now: after this, every line the process wrote before is in the log. */
    synchronized void drain() {
        if (closed) return;
        try {
            while (true) {
                buffer.clear();
                int n = channel.read(buffer, offset);
                if (n <= 0) break;
                lines.feed(buffer.array(), n);
                offset += n;
            }
            if (offset >= ROTATE_AT && channel.size() == offset) {
                channel.truncate(0);
                offset = 0;
            }
        } catch (IOException e) {
            LOG.debug("output file {}: {}", file, e.toString());
        }
        if (offset != savedOffset && System.nanoTime() - savedAt >= SAVE_EVERY_NANOS) saveOffset();
    }

    private void follow() {
        while (true) {
            synchronized (this) {
                if (closed) return;
            }
            drain();
            try {
                Thread.sleep(POLL);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void saveOffset() {
        savedAt = System.nanoTime();
        savedOffset = offset;
        try {
            Files.writeString(offsetFile, Long.toString(offset), StandardCharsets.UTF_8);
        } catch (IOException e) {
            LOG.debug("output file {}: offset not saved: {}", file, e.toString());
        }
    }

    /** Stops following, with all that was written read and the place saved for the next server. */
    @Override
    public void close() {
        drain();
        synchronized (this) {
            if (closed) return;
            closed = true;
            saveOffset();
            try {
                channel.close();
            } catch (IOException e) {
                LOG.debug("output file {}: {}", file, e.toString());
            }
        }
        lines.end(); // the follower sees it is closed after its pause
    }

    /** Stops following and deletes the file: its process is stopped for good. */
    void delete() {
        close();
        try {
            Files.deleteIfExists(file);
            Files.deleteIfExists(offsetFile);
        } catch (IOException e) {
            LOG.debug("output file {} kept: {}", file, e.toString());
        }
    }

    private static Path offsetFile(Path file) {
        return file.resolveSibling(file.getFileName() + ".offset");
    }
}
