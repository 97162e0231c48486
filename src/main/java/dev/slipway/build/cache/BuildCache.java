package dev.slipway.build.cache;

import dev.slipway.build.Trees;
import dev.slipway.build.toolchain.PackageManager;
import dev.slipway.build.toolchain.Toolchain;
import dev.slipway.isolation.Confinement;
import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The build cache of Node apps: the installed packages (every node_modules of the install's
 * tree, workspace members' included) under a {@link CacheKey}, which names the project, so an entry serves that
 * project's later builds only; and Next's {@code .next/cache}, kept per project. Entries count against their
 * account's bound. Entries live in a {@link CacheStore}
 * and are copied by {@link CacheTrees}.
 * <p>
 * A build {@link #open opens} a {@link Use}: {@link Use#restore} before the install (true: it may be skipped),
 * {@link Use#snapshot} right after an install (so that the build script's changes to node_modules are never
 * cached), and {@link Use#keep} after a successful build, which commits the snapshot and saves .next/cache;
 * closing a use that was not kept deletes what it made. A build after whose install nothing of the project's runs
 * puts the snapshot off instead ({@link Use#later}): it is taken from the frozen artifact once the app has started.
 */
public final class BuildCache {
    static final String DEPENDENCIES = "deps";
    static final String NEXT = "next";
    private static final String NEXT_CACHE = ".next/cache";

    private final CacheStore store;
    private final Confinement confinement;
    /** Snapshots put off ({@link Use#later}) and not taken yet, by account and key. */
    private final Map<String, Later> later = new ConcurrentHashMap<>();

    BuildCache(CacheStore store, Confinement confinement) {
        this.store = store;
        this.confinement = confinement;
    }

    /** A build cache kept in {@code dir}, holding at most {@code maxBytesPerAccount} for each account (0: off). */
    public static BuildCache in(Path dir, long maxBytesPerAccount, Clock clock, Confinement confinement) {
        return new BuildCache(new CacheStore(dir, maxBytesPerAccount, clock), confinement);
    }

    public int sweep() {
        return store.sweep();
    }

    /** Takes the snapshot the build {@code artifactId} put off, if any, on a thread of its own. */
    public void takeLater(String artifactId) {
        for (Later l : later.values()) {
            if (l.artifactId.equals(artifactId)) Thread.ofVirtual().name("build-cache-later").start(l::take);
        }
    }

    /** Deletes every entry (the disk is short of space); the bytes freed. Builds only lose speed. */
    public long evictAll() {
        return store.evictAll();
    }

    /**
     * The cache for one Node build; {@link Use#NONE} when it cannot be used (no account, cache off, no
     * lockfile, yarn berry), with the reason logged.
     *
     * @param installDir where the install runs; {@code app} where the build runs
     * @param stepPath   the install step's PATH
     */
    public Use open(String accountId, String projectId, Path workspace, Path installDir, Path app, Toolchain toolchain,
             String stepPath, Map<String, String> appEnv, boolean next, LogSink log) {
        if (accountId == null || !store.enabled()) return Use.NONE;
        String why = null;
        PackageManager pm = toolchain.packageManager();
        if (!pm.locked()) why = "there is no lockfile, so every install resolves the versions afresh";
        else if (pm.kind() == PackageManager.Kind.YARN_BERRY) why = "yarn berry keeps its packages in .yarn, not node_modules";
        else {
            Optional<String> script = CacheKey.ownInstallScript(installDir);
            if (script.isPresent()) why = "the app's " + script.get() + " script runs at every install and may write outside node_modules";
        }
        String key = why == null ? CacheKey.of(projectId, workspace, installDir, toolchain, stepPath, appEnv) : null;
        if (why != null) log.log(Level.INFO, "Build cache: installed packages are not cached (" + why + ")");
        return new Use(this, accountId, projectId, installDir, app, key, pm, next, log);
    }

    /** One build's use of the cache. */
    public static class Use implements AutoCloseable {
        static final Use NONE = new Use(null, null, null, null, null, null, null, false, null);

        private final BuildCache cache;
        private final String account;
        private final String project;
        private final Path installDir;
        private final Path app;
        private final String key;
        private final PackageManager pm;
        private final boolean next;
        private final LogSink log;
        private Path snapshot;
        private long snapshotBytes;
        private List<String> locations = List.of();

        private Use(BuildCache cache, String account, String project, Path installDir, Path app, String key,
                    PackageManager pm, boolean next, LogSink log) {
            this.cache = cache;
            this.account = account;
            this.project = project;
            this.installDir = installDir;
            this.app = app;
            this.key = key;
            this.pm = pm;
            this.next = next;
            this.log = log;
        }

        /** Restores .next/cache, and the installed packages when the key has an entry: then true, and the install is skipped. */
        public boolean restore() {
            if (cache == null) return false;
            if (next) restoreNext();
            if (key == null) return false;
            Later earlier = cache.later.get(laterKey());
            if (earlier != null) earlier.take(); // an earlier build's packages not taken yet: taken now, then read
            Optional<List<String>> restored;
            try {
                restored = cache.store.read(account, DEPENDENCIES, key, tree -> {
                    try {
                        return cache.restoreDependencies(tree, installDir, project);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
            } catch (UncheckedIOException | IllegalArgumentException e) {
                log.log(Level.WARNING, "Build cache: could not restore the installed packages (" + e.getMessage() + "); installing");
                deleteLocationsOf(installDir);
                return false;
            }
            if (restored.isPresent() && !restored.get().isEmpty()) {
                log.log(Level.INFO, "Build cache: hit for key " + shortKey() + ": reused " + String.join(", ", restored.get())
                        + " installed by an earlier build; skipping " + pm.kind().command() + " " + pm.install().get(1));
                return true;
            }
            log.log(Level.INFO, "Build cache: no entry for key " + shortKey() + "; installing");
            return false;
        }

        /** After an install: takes what it wrote, to be committed by {@link #keep}. */
        public void snapshot() {
            if (cache == null || key == null) return;
            try {
                List<String> found = nodeModules(installDir);
                if (found.isEmpty()) return;
                snapshot = cache.store.temp(account);
                Path tree = CacheStore.tree(snapshot);
                int owner = ((Number) Files.getAttribute(tree, "unix:uid")).intValue();
                long bytes = 0;
                for (String rel : found) {
                    Path to = tree.resolve(rel);
                    Files.createDirectories(to.getParent());
                    bytes += CacheTrees.snapshot(installDir.resolve(rel), to, cache.confinement.isolated(), owner);
                }
                snapshotBytes = bytes;
                locations = found;
            } catch (IOException | RuntimeException e) {
                log.log(Level.WARNING, "Build cache: could not take the installed packages (" + e.getMessage() + "); the next build installs again");
                discard();
            }
        }

        /**
         * Instead of {@link #snapshot} and {@link #keep}, for a build after whose install nothing of the project's runs
         * before its artifact is frozen and bound read-only into its cells, so that nothing can change the packages
         * meanwhile: they are taken from {@code artifactInstallDir}, where the artifact will hold them, once its app has
         * started ({@link BuildCache#takeLater}) or the next build of the key needs them. Null when nothing is cached.
         */
        public Later later(Path artifactInstallDir, String artifactId) {
            if (cache == null || key == null) return null;
            log.log(Level.INFO, "Build cache: the installed packages are saved as key " + shortKey() + " once the app has started");
            return new Later(new Use(cache, account, project, artifactInstallDir, artifactInstallDir, key, pm, false, log), artifactId);
        }

        private String laterKey() {
            return account + "/" + key;
        }

        /** After a successful build: commits the snapshot, saves .next/cache, and evicts what is over the bound. */
        public void keep() {
            if (cache == null) return;
            try {
                if (snapshot != null) {
                    var done = cache.store.commit(account, DEPENDENCIES, key, snapshot, snapshotBytes, false);
                    snapshot = null;
                    log.log(Level.INFO, (done.kept() ? "Build cache: saved " + String.join(", ", locations) + " as key "
                            + shortKey() + " (" + megabytes(snapshotBytes) + ")" : "Build cache: key " + shortKey()
                            + " not kept (" + megabytes(snapshotBytes) + "; the account's cache holds at most "
                            + megabytes(cache.store.maxBytesPerAccount()) + ")") + evicted(done));
                }
                if (next) saveNext();
            } catch (IOException | RuntimeException e) {
                log.log(Level.WARNING, "Build cache: could not save (" + e.getMessage() + ")");
            }
        }

        @Override
        public void close() {
            discard();
        }

        private void discard() {
            if (snapshot != null) Trees.delete(snapshot);
            snapshot = null;
        }

        private void restoreNext() {
            Path target = app.resolve(NEXT_CACHE);
            if (Files.exists(target.getParent(), LinkOption.NOFOLLOW_LINKS)) return; // the source has a .next of its own
            try {
                Optional<Boolean> restored = cache.store.read(account, NEXT, nextName(), tree -> {
                    try {
                        Files.createDirectory(target.getParent());
                        cache.confinement.handOver(target.getParent(), project);
                        CacheTrees.restore(tree, target, false, p -> cache.confinement.handOver(p, project));
                        return true;
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
                if (restored.isPresent()) log.log(Level.INFO, "Build cache: restored .next/cache from this project's last build");
            } catch (UncheckedIOException e) {
                log.log(Level.WARNING, "Build cache: could not restore .next/cache (" + e.getMessage() + ")");
                Trees.delete(target.getParent());
            }
        }

        private void saveNext() throws IOException {
            Path from = app.resolve(NEXT_CACHE);
            if (!Files.isDirectory(from, LinkOption.NOFOLLOW_LINKS)) return;
            Path temp = cache.store.temp(account);
            try {
                int owner = ((Number) Files.getAttribute(temp, "unix:uid")).intValue();
                Path tree = CacheStore.tree(temp);
                Files.delete(tree);
                long bytes = CacheTrees.snapshot(from, tree, false, owner);
                var done = cache.store.commit(account, NEXT, nextName(), temp, bytes, true);
                temp = null;
                if (done.kept()) log.log(Level.INFO, "Build cache: saved .next/cache (" + megabytes(bytes) + ")" + evicted(done));
            } finally {
                if (temp != null) Trees.delete(temp);
            }
        }

        private String nextName() {
            return sha256(project + "\0" + installDir.relativize(app)).substring(0, 32);
        }

        private String shortKey() {
            return key.substring(0, 12);
        }
    }

    /** A snapshot put off until its build's app has started ({@link Use#later}); taken once, by the first who asks. */
    public static final class Later {
        private final Use use;
        private final String artifactId;
        private final ReentrantLock lock = new ReentrantLock();
        private boolean taken;

        private Later(Use use, String artifactId) {
            this.use = use;
            this.artifactId = artifactId;
        }

        /** Once the artifact is recorded and frozen: from now on it may be taken. */
        public void register() {
            use.cache.later.put(use.laterKey(), this);
        }

        void take() {
            lock.lock();
            try {
                if (taken) return;
                taken = true;
                try (use) {
                    use.snapshot();
                    use.keep();
                }
            } finally {
                use.cache.later.remove(use.laterKey(), this);
                lock.unlock();
            }
        }
    }

    /**
     * Links the entry's node_modules into the workspace at their places, replacing any the source has;
     * returns them, or nothing when a place is not a folder of the workspace itself (then a miss).
     */
    private List<String> restoreDependencies(Path tree, Path installDir, String project) throws IOException {
        List<String> found = nodeModules(tree);
        Path realInstall = installDir.toRealPath();
        for (String rel : found) {
            Path parent = installDir.resolve(rel).getParent();
            if (!Files.isDirectory(parent, LinkOption.NOFOLLOW_LINKS)
                    || !parent.toRealPath().equals(realInstall.resolve(rel).getParent())) {
                return List.of();
            }
        }
        for (String rel : found) {
            Path target = installDir.resolve(rel);
            Trees.delete(target); // a node_modules committed with the source: the install would replace it too
            CacheTrees.restore(tree.resolve(rel), target, confinement.isolated(), p -> confinement.handOver(p, project));
        }
        return found;
    }

    private static void deleteLocationsOf(Path installDir) {
        try {
            for (String rel : nodeModules(installDir)) Trees.delete(installDir.resolve(rel));
        } catch (IOException | RuntimeException ignored) {
            // the install that follows replaces them
        }
    }

    /** The relative paths of the node_modules folders of a tree, not counting those inside another. */
    static List<String> nodeModules(Path root) throws IOException {
        List<String> found = new ArrayList<>();
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                if (dir.equals(root)) return FileVisitResult.CONTINUE;
                String name = dir.getFileName().toString();
                if (name.equals("node_modules")) {
                    found.add(root.relativize(dir).toString());
                    return FileVisitResult.SKIP_SUBTREE;
                }
                return name.equals(".git") || name.equals(".next") ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
            }
        });
        found.sort(null);
        return found;
    }

    private static String evicted(CacheStore.Committed done) {
        return done.evicted() == 0 ? "" : "; evicted " + done.evicted() + " least recently used "
                + (done.evicted() == 1 ? "entry" : "entries") + " to stay within the bound";
    }

    static String megabytes(long bytes) {
        return String.format(Locale.ROOT, "%.1f MB", bytes / 1_000_000.0);
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
