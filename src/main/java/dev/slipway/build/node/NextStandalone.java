package dev.slipway.build.node;

import dev.slipway.build.BuildException;
import dev.slipway.build.Trees;
import dev.slipway.build.detect.StartCommands;
import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;

/**
 * Next's {@code output: 'standalone'}: the build writes a server ({@code .next/standalone/server.js}) with
 * only the packages it traced. The artifact becomes that folder, with {@code .next/static} and {@code public}
 * copied in as Next's docs say, and nothing else: no full node_modules, no sources, no build cache. In a
 * monorepo the server sits at the app's folder inside the standalone tree, which keeps the workspace layout.
 */
public final class NextStandalone {
    static final String DIR = ".next/standalone";
    /** server.js reads PORT and HOSTNAME; without HOSTNAME it listens on every interface. */
    public static final List<String> START = List.of("env", "HOSTNAME=" + StartCommands.LOOPBACK, "node", "server.js");

    private NextStandalone() {}

    /**
     * Replaces the artifact's content with the standalone server when the build made one.
     *
     * @param root  the artifact
     * @param built the app's folder in it ({@code root} itself, or {@code root/<appDir>})
     * @return true when the artifact now holds the standalone server, to be started with {@link #START} in {@code built}
     */
    public static boolean adopt(Path root, Path built, LogSink log) throws IOException {
        Path standalone = built.resolve(DIR);
        if (!Files.exists(standalone, LinkOption.NOFOLLOW_LINKS)) return false;
        Path server = standalone.resolve(root.relativize(built).toString());
        if (!Trees.linkFree(root, server) || !Files.isRegularFile(server.resolve("server.js"), LinkOption.NOFOLLOW_LINKS)) {
            log.log(Level.WARNING, "Next wrote " + DIR + " but no " + root.relativize(server.resolve("server.js"))
                    + " (or a symbolic link on the way to it); starting with next start instead");
            return false;
        }
        long before = DevDependencies.Sizes.of(root);
        moveIn(root, built.resolve(".next/static"), server, ".next/static");
        moveIn(root, built.resolve("public"), server, "public");
        Path aside = root.resolveSibling(root.getFileName() + ".standalone");
        try {
            Files.move(standalone, aside);
            Trees.delete(root);
            Files.move(aside, root);
        } finally {
            Trees.delete(aside);
        }
        if (Files.isSymbolicLink(built.resolve(".next"))) {
            throw new BuildException("the standalone server's .next is a symbolic link; Slipway does not follow links the build wrote");
        }
        log.log(Level.INFO, "Next standalone output: the artifact keeps " + DIR + " with .next/static and public, "
                + DevDependencies.megabytes(before) + " → " + DevDependencies.megabytes(DevDependencies.Sizes.of(root)));
        return true;
    }

    /** Moves a folder of the build into the server's folder; a symbolic link on either way refuses the build. */
    private static void moveIn(Path root, Path from, Path server, String to) throws IOException {
        if (!Files.exists(from, LinkOption.NOFOLLOW_LINKS)) return;
        Path target = server.resolve(to);
        if (!Trees.linkFree(root, from) || !Trees.linkFree(server, target.getParent())) {
            throw new BuildException("the Next build's " + root.relativize(from) + " or the standalone server's "
                    + to + " is reached through a symbolic link; Slipway does not follow links the build wrote");
        }
        Trees.delete(target);
        Files.createDirectories(target.getParent());
        Files.move(from, target);
    }
}
