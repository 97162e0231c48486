package dev.slipway.build.docker;

import dev.slipway.build.Trees;
import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where and how buildah keeps a project's layers. Overlay where the kernel lets an unprivileged user namespace mount
 * it (Linux 5.11 and later): a step's layer is a folder over its parent's, so a step costs what it changes. vfs
 * elsewhere: every step copies its parent's whole root file system. Each keeps its own folder in the project's build
 * cache, so a server that changes driver empties the other one's instead of handing buildah a store it did not make.
 */
enum StorageDriver {
    OVERLAY("overlay", "overlay"),
    VFS("vfs", ".");

    private static final Pattern RELEASE = Pattern.compile("^(\\d+)\\.(\\d+)");
    private final String name;
    private final String folder;

    StorageDriver(String name, String folder) {
        this.name = name;
        this.folder = folder;
    }

    /** This machine's: read once from the running kernel's release. */
    static StorageDriver here() {
        try {
            return forRelease(Files.readString(Path.of("/proc/sys/kernel/osrelease")));
        } catch (IOException e) {
            return VFS;
        }
    }

    static StorageDriver forRelease(String release) {
        Matcher m = RELEASE.matcher(release.strip());
        if (!m.find()) return VFS;
        int major = Integer.parseInt(m.group(1));
        int minor = Integer.parseInt(m.group(2));
        return major > 5 || major == 5 && minor >= 11 ? OVERLAY : VFS;
    }

    /** The folder of this driver's store in the project's {@code storage}: buildah's, and the marks of what it holds. */
    Path home(Path storage) {
        return storage.resolve(folder).normalize();
    }

    /** buildah's options for a project's store under {@code storage}. */
    List<String> options(Path storage) {
        Path home = home(storage);
        return List.of("--root", home.resolve("root").toString(), "--runroot", home.resolve("run").toString(), "--storage-driver", name);
    }

    /** Empties the other driver's store, if a server with that driver left one. */
    void clearOthers(Path storage, LogSink log) {
        for (StorageDriver other : values()) {
            if (other == this) continue;
            Path home = other.home(storage);
            if (!Files.isDirectory(home.resolve("root"))) continue;
            for (String part : List.of("root", "run", "bases")) Trees.delete(home.resolve(part));
            log.log(Level.INFO, "The project's layer cache was in buildah's " + other.name + " storage; this server uses "
                    + name + ": emptied, so this build runs every step");
        }
    }
}
