package dev.slipway.build.node;

import dev.slipway.build.BuildException;
import dev.slipway.build.steps.CommandRunner;
import dev.slipway.build.PackageJson;
import dev.slipway.build.steps.Steps;
import dev.slipway.build.Trees;
import dev.slipway.build.toolchain.PackageManager;
import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Drops a built Node server's devDependencies from its artifact, with its own package manager, and keeps the
 * result only if the app still starts: {@link StartCheck} starts it in the build's cell and waits for an HTTP
 * answer below 500, as the runtime's health check does. Before the prune, the installed packages are
 * snapshotted as hard links (a prune unlinks files, it never rewrites them), so a failed prune or start puts
 * the full install back at the cost of a rename.
 */
public final class DevDependencies {
    /** What the package manager changes when it prunes, relative to the install folder. */
    private static final List<String> INSTALL_STATE = List.of("node_modules");
    /** yarn berry's: Plug'n'Play's maps and the app's own package cache, or its node_modules. */
    private static final List<String> BERRY_STATE = List.of("node_modules", ".pnp.cjs", ".pnp.loader.mjs", ".pnp.data.json",
            ".yarn/cache", ".yarn/unplugged", ".yarn/install-state.gz");
    /** The plugin with {@code yarn workspaces focus}: built into yarn 4, a plugin to add in yarn 2 and 3. */
    private static final String FOCUS_PLUGIN = "@yarnpkg/plugin-workspace-tools";

    private final Steps steps;
    private final PackageManager packageManager;
    private final Path scratch;

    /**
     * @param scratch a folder of the server's on the artifacts' file system, outside every artifact (and
     *                deleted afterwards), for the snapshot and the start check's script
     */
    public DevDependencies(Steps steps, PackageManager packageManager, Path scratch) {
        this.steps = steps;
        this.packageManager = packageManager;
        this.scratch = scratch;
    }

    /**
     * Prunes the packages installed in {@code app} (which must be where they were installed) if the app still
     * answers once pruned; logs the sizes before and after, or why the full install was kept.
     *
     * @param root  the artifact ({@code app} is it, or a folder of it)
     * @param start the app's start command, as the runtime will run it in {@code app}
     */
    public void prune(Path root, Path app, PackageJson pkg, List<String> start, LogSink log) throws IOException {
        if (pkg.devDependencies().isEmpty()) return;
        boolean berry = packageManager.kind() == PackageManager.Kind.YARN_BERRY;
        List<String> state = berry ? BERRY_STATE : INSTALL_STATE;
        List<String> command = pruneCommand();
        if (command.isEmpty()) {
            log.log(Level.INFO, "Dev dependencies kept: pruning is not supported with " + packageManager.kind().label());
            return;
        }
        if (!Trees.linkFree(root, app) || state.stream().anyMatch(part -> !Trees.linkFree(app, app.resolve(part)))) {
            log.log(Level.WARNING, "Dev dependencies kept: the app's folder or its installed packages are a symbolic link");
            return;
        }
        if (state.stream().noneMatch(part -> Files.isDirectory(app.resolve(part)))) {
            log.log(Level.INFO, "Dev dependencies kept: there are no installed packages to prune (" + packageManager.kind().label() + ")");
            return;
        }
        if (berry && !hasFocus(app)) {
            log.log(Level.INFO, "Dev dependencies kept: this yarn has no `yarn workspaces focus` (add " + FOCUS_PLUGIN
                    + " to .yarnrc.yml, or use yarn 4, where it is built in)");
            return;
        }
        long before = size(app, state);
        Path snapshot = scratch.resolve("full");
        Files.createDirectories(snapshot);
        try {
            for (String part : state) {
                if (Files.exists(app.resolve(part), LinkOption.NOFOLLOW_LINKS)) {
                    Trees.linkCopy(app.resolve(part), snapshot.resolve(part));
                }
            }
            StartCheck.Failure why = pruneAndCheck(app, state, command, start, log);
            requireLinkFree(app, state); // the prune and the app ran the tenant's code in this folder
            if (why == null) {
                log.log(Level.INFO, "Dropped dev dependencies: " + megabytes(before) + " → " + megabytes(size(app, state))
                        + " of " + (berry ? "packages" : "node_modules") + " (the app still answers without them)");
                return;
            }
            if (why.kind() == StartCheck.Kind.WRONG_PORT) throw new BuildException(why.ofTheApp());
            for (String part : state) {
                Trees.delete(app.resolve(part));
                if (Files.exists(snapshot.resolve(part))) {
                    Files.move(snapshot.resolve(part), app.resolve(part));
                    steps.runner().confinement().handOver(app.resolve(part), steps.confine().projectId());
                }
            }
            String kept = "Dev dependencies kept (" + megabytes(before) + " of " + (berry ? "packages" : "node_modules") + "): ";
            if (why.kind() != StartCheck.Kind.EXITED) {
                log.log(Level.WARNING, kept + "once pruned, " + why.why());
                return;
            }
            // it ended at once: a missing dev dependency does that, and so does an app that fails whatever is installed
            log.log(Level.INFO, "Starting the app once more with its dev dependencies, to see whether they are the cause");
            StartCheck.Failure unpruned = StartCheck.run(steps, app, start, scratch.resolve("check"), log).orElse(null);
            if (unpruned != null && unpruned.kind() == StartCheck.Kind.WRONG_PORT) throw new BuildException(unpruned.ofTheApp());
            log.log(Level.WARNING, kept + (unpruned == null ? "once pruned, " + why.why()
                    : "the app does not start with them either (" + unpruned.why() + "), so they are not the cause; its log above says why"));
        } finally {
            Trees.delete(scratch);
        }
    }

    /** Null when the pruned app answers; else why the full install must stay. */
    private StartCheck.Failure pruneAndCheck(Path app, List<String> state, List<String> command, List<String> start, LogSink log) {
        log.log(Level.INFO, "Dropping dev dependencies, then starting the app once to check it still answers");
        try {
            steps.attempt(command, app, log);
        } catch (BuildException e) {
            return new StartCheck.Failure(StartCheck.Kind.ERROR, CommandRunner.display(command, app) + " failed (" + e.getMessage() + ")");
        }
        if (packageManager.kind() == PackageManager.Kind.YARN_BERRY) {
            requireLinkFree(app, state);
            try {
                dropUnreferencedZips(app);
            } catch (IOException e) {
                return new StartCheck.Failure(StartCheck.Kind.ERROR, "the packages the focus left out could not be deleted ("
                        + e.getMessage() + ")");
            }
        }
        return StartCheck.run(steps, app, start, scratch.resolve("check"), log).orElse(null);
    }

    /** The prune of each package manager; empty: not supported. */
    List<String> pruneCommand() {
        String pm = packageManager.command();
        return switch (packageManager.kind()) {
            case NPM -> List.of(pm, "prune", "--omit=dev", "--no-audit", "--no-fund");
            case PNPM -> List.of(pm, "prune", "--prod");
            // classic has no prune: an install of the production dependencies removes the others
            case YARN_CLASSIC -> List.of(pm, "install", "--production", "--frozen-lockfile", "--non-interactive",
                    "--no-progress", "--ignore-scripts");
            case YARN_BERRY -> List.of(pm, "workspaces", "focus", "--production");
            case BUN -> List.of(); // bun has no prune
        };
    }

    /**
     * The focus rewrites Plug'n'Play's map but leaves every zip in the app's .yarn/cache (the lockfile still
     * names them): the zips the new map does not name are the devDependencies', and go. Without a map
     * ({@code nodeLinker: node-modules}) the focus has already pruned node_modules.
     */
    private static void dropUnreferencedZips(Path app) throws IOException {
        Path map = app.resolve(".pnp.cjs");
        Path cache = app.resolve(".yarn/cache");
        if (!Files.isRegularFile(map, LinkOption.NOFOLLOW_LINKS)
                || !Files.isDirectory(cache, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        StringBuilder named = new StringBuilder(Files.readString(map));
        Path data = app.resolve(".pnp.data.json");
        if (Files.isRegularFile(data, LinkOption.NOFOLLOW_LINKS)) named.append(Files.readString(data));
        String text = named.toString();
        try (var zips = Files.list(cache)) {
            for (Path zip : zips.toList()) {
                String name = zip.getFileName().toString();
                if (name.endsWith(".zip") && !text.contains("/.yarn/cache/" + name)) Files.deleteIfExists(zip);
            }
        }
    }

    private static void requireLinkFree(Path app, List<String> state) {
        for (String part : state) {
            if (!Trees.linkFree(app, app.resolve(part))) {
                throw new BuildException("the build left a symbolic link at " + part + "; Slipway does not follow links the build wrote");
            }
        }
    }

    /** Whether this yarn berry has the focus command: its runtime's plugin list names the plugin. */
    private boolean hasFocus(Path app) {
        List<String> lines = new ArrayList<>();
        try {
            steps.attempt(List.of(packageManager.command(), "plugin", "runtime"), app, (level, line) -> lines.add(line));
        } catch (BuildException e) {
            return false;
        }
        return lines.stream().anyMatch(l -> l.contains(FOCUS_PLUGIN));
    }

    private static long size(Path app, List<String> state) throws IOException {
        long total = 0;
        for (String part : state) {
            if (Files.exists(app.resolve(part), LinkOption.NOFOLLOW_LINKS)) total += Sizes.of(app.resolve(part));
        }
        return total;
    }

    static String megabytes(long bytes) {
        return String.format(Locale.ROOT, "%.1f MB", bytes / 1_000_000.0);
    }

    /** Bytes of the regular files in a tree, each inode once (pnpm's store links one file into many places). */
    static final class Sizes {
        private Sizes() {}

        static long of(Path dir) throws IOException {
            Set<Object> seen = new HashSet<>();
            long total = 0;
            try (var walk = Files.walk(dir)) {
                for (Path p : (Iterable<Path>) walk::iterator) {
                    var attrs = Files.readAttributes(p, BasicFileAttributes.class,
                            LinkOption.NOFOLLOW_LINKS);
                    if (attrs.isRegularFile() && (attrs.fileKey() == null || seen.add(attrs.fileKey()))) total += attrs.size();
                }
            }
            return total;
        }
    }
}
