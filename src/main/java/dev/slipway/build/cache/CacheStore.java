package dev.slipway.build.cache;

import dev.slipway.build.Trees;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The build cache's entries on disk: {@code <dir>/<account>/<kind>/<name>/}, each holding the cached tree
 * ({@code tree/}) and its size in bytes ({@code size}); an entry's modification time is when it was last used.
 * Every account has its own directory and its own bound: entries are never looked up across accounts, and the
 * least recently used ones go first when an account is over its bound.
 * <p>
 * An entry is made in a temporary directory of its account and renamed into place, so a crash leaves at
 * most a temporary directory ({@link #sweep}), never a half entry that a build would use. Reading an entry
 * holds its account's read lock and committing or evicting its write lock, so an entry is never deleted while
 * a build copies from it; builds of different accounts never wait for each other.
 */
final class CacheStore {
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9_-]{1,100}");
    private static final String TEMP = ".tmp-";
    private static final String TREE = "tree";
    private static final String SIZE = "size";

    /** What a commit did: whether the new entry was kept, and how many older ones were evicted. */
    record Committed(boolean kept, int evicted, long accountBytes) {}

    record Entry(Path dir, long bytes, Instant lastUsed) {}

    private final Path dir;
    private final long maxBytesPerAccount;
    private final Clock clock;
    private final ConcurrentHashMap<String, ReentrantReadWriteLock> locks = new ConcurrentHashMap<>();

    CacheStore(Path dir, long maxBytesPerAccount, Clock clock) {
        this.dir = dir;
        this.maxBytesPerAccount = maxBytesPerAccount;
        this.clock = clock;
    }

    boolean enabled() {
        return maxBytesPerAccount > 0;
    }

    long maxBytesPerAccount() {
        return maxBytesPerAccount;
    }

    /**
     * Runs {@code reader} on the entry's tree while no commit of the account can evict it, and marks the entry
     * used; empty when there is no such entry.
     */
    <T> Optional<T> read(String account, String kind, String name, Function<Path, T> reader) {
        Path entry = entry(account, kind, name);
        var lock = lock(account).readLock();
        lock.lock();
        try {
            if (!Files.isDirectory(entry.resolve(TREE), LinkOption.NOFOLLOW_LINKS)) return Optional.empty();
            Files.setLastModifiedTime(entry, FileTime.from(clock.instant()));
            return Optional.of(reader.apply(entry.resolve(TREE)));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot use the build cache entry " + entry, e);
        } finally {
            lock.unlock();
        }
    }

    /** A new empty directory for an entry being made: fill its {@code tree/} and {@link #commit} it (or delete it). */
    Path temp(String account) throws IOException {
        Path temp = accountDir(account).resolve(TEMP + UUID.randomUUID());
        Files.createDirectories(temp.resolve(TREE));
        return temp;
    }

    static Path tree(Path temp) {
        return temp.resolve(TREE);
    }

    /**
     * Makes {@code temp} the entry {@code kind/name}. An existing entry stays (another build of the same key
     * made the same tree first) unless {@code replace}. Then evicts the account's least recently used entries
     * until it is within its bound: an entry larger than the bound alone is not kept.
     */
    Committed commit(String account, String kind, String name, Path temp, long bytes, boolean replace) throws IOException {
        Path entry = entry(account, kind, name);
        Files.writeString(temp.resolve(SIZE), Long.toString(bytes), StandardCharsets.US_ASCII);
        Files.setLastModifiedTime(temp, FileTime.from(clock.instant()));
        var lock = lock(account).writeLock();
        lock.lock();
        try {
            Files.createDirectories(entry.getParent());
            boolean kept = true;
            if (Files.exists(entry, LinkOption.NOFOLLOW_LINKS)) {
                if (replace) {
                    Path old = accountDir(account).resolve(TEMP + UUID.randomUUID());
                    Files.move(entry, old, StandardCopyOption.ATOMIC_MOVE);
                    Trees.delete(old);
                } else {
                    kept = false;
                }
            }
            if (kept) {
                try {
                    Files.move(temp, entry, StandardCopyOption.ATOMIC_MOVE);
                } catch (FileAlreadyExistsException | DirectoryNotEmptyException raced) {
                    kept = false;
                }
            }
            if (!kept) Trees.delete(temp);
            int evicted = 0;
            List<Entry> entries = new ArrayList<>(entries(account));
            // among entries used at the same instant, the one just made goes last
            entries.sort(Comparator.comparing(Entry::lastUsed).thenComparing(e -> e.dir().equals(entry))
                    .thenComparing(e -> e.dir().toString()));
            long total = entries.stream().mapToLong(Entry::bytes).sum();
            for (Entry e : entries) {
                if (total <= maxBytesPerAccount) break;
                Trees.delete(e.dir());
                total -= e.bytes();
                evicted++;
                if (e.dir().equals(entry)) kept = false;
            }
            return new Committed(kept, evicted, total);
        } finally {
            lock.unlock();
        }
    }

    /** The account's entries, in no order. */
    List<Entry> entries(String account) throws IOException {
        Path home = accountDir(account);
        List<Entry> out = new ArrayList<>();
        if (!Files.isDirectory(home)) return out;
        try (var kinds = Files.list(home)) {
            for (Path kind : kinds.filter(k -> !k.getFileName().toString().startsWith(TEMP)).toList()) {
                try (var names = Files.list(kind)) {
                    for (Path e : names.toList()) {
                        out.add(new Entry(e, size(e), Files.getLastModifiedTime(e, LinkOption.NOFOLLOW_LINKS).toInstant()));
                    }
                }
            }
        }
        return out;
    }

    /** Deletes the temporary directories that builds killed mid-way left; at start, before any build. */
    int sweep() {
        int deleted = 0;
        if (!Files.isDirectory(dir)) return 0;
        try (var accounts = Files.list(dir)) {
            for (Path account : accounts.toList()) {
                try (var children = Files.list(account)) {
                    for (Path child : children.filter(c -> c.getFileName().toString().startsWith(TEMP)).toList()) {
                        Trees.delete(child);
                        deleted++;
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot sweep the build cache " + dir, e);
        }
        return deleted;
    }

    private static long size(Path entry) {
        try {
            return Long.parseLong(Files.readString(entry.resolve(SIZE), StandardCharsets.US_ASCII).strip());
        } catch (IOException | NumberFormatException e) {
            return 0; // never: commit writes it before the entry exists
        }
    }

    private Path entry(String account, String kind, String name) {
        if (!ID.matcher(kind).matches() || !ID.matcher(name).matches()) throw new IllegalArgumentException("bad cache entry " + kind + "/" + name);
        return accountDir(account).resolve(kind).resolve(name);
    }

    private Path accountDir(String account) {
        if (!ID.matcher(account).matches()) throw new IllegalArgumentException("bad account id for the build cache");
        return dir.resolve(account);
    }

    /**
     * Deletes every entry of every account (the disk is short of space), each account under its write lock, so no
     * build copying from an entry loses it midway; the bytes freed.
     */
    long evictAll() {
        if (!Files.isDirectory(dir)) return 0;
        long freed = 0;
        List<Path> accounts;
        try (var list = Files.list(dir)) {
            accounts = list.toList();
        } catch (IOException e) {
            return 0;
        }
        for (Path home : accounts) {
            String account = home.getFileName().toString();
            if (!ID.matcher(account).matches()) continue;
            var lock = lock(account).writeLock();
            lock.lock();
            try {
                for (Entry e : entries(account)) {
                    Trees.delete(e.dir());
                    freed += e.bytes();
                }
            } catch (IOException | UncheckedIOException e) {
                // what could not go stays; the disk check says what is still short
            } finally {
                lock.unlock();
            }
        }
        return freed;
    }

    /** True while a build waits for the account's lock (for tests). */
    boolean waiting(String account) {
        return lock(account).hasQueuedThreads();
    }

    private ReentrantReadWriteLock lock(String account) {
        return locks.computeIfAbsent(account, a -> new ReentrantReadWriteLock());
    }
}
