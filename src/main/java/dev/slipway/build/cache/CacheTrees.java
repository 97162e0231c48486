package dev.slipway.build.cache;

import dev.slipway.build.Trees;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;

/**
 * Copying trees into and out of the build cache. In the sandbox a cached file is a hard link: the snapshot
 * takes the installed file itself (after making it the server's and read-only for everyone), and a restore
 * links that same file into the new workspace. A build step runs as the project's uid, without capabilities,
 * so it can read the file and unlink it from its own folders, but never change it, its mode or its owner:
 * the cached copy stays what the install wrote. Without the sandbox every step runs as the server's own user,
 * which could write through any link, so files are copied both ways.
 * <p>
 * Only regular files, folders and symbolic links are cached (links as they are, never followed).
 */
final class CacheTrees {
    /** Hidden files at the top of node_modules that package managers rewrite in place (npm's .package-lock.json). */
    private static final String HIDDEN = ".";

    interface HandOver {
        void apply(Path p) throws IOException;
    }

    private CacheTrees() {}

    /**
     * Copies (or, with {@code link}, hard-links) the tree {@code from} into {@code to}, which must not exist,
     * and makes every file of it owned by {@code owner} (the cache's uid) and read-only for all.
     *
     * @return the bytes of its regular files
     */
    static long snapshot(Path from, Path to, boolean link, int owner) throws IOException {
        long[] bytes = {0};
        Trees.mirror(from, to, (file, target, attrs) -> {
            PosixFileAttributes posix = Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            int links = ((Number) Files.getAttribute(file, "unix:nlink", LinkOption.NOFOLLOW_LINKS)).intValue();
            // a file linked elsewhere too (pnpm's store, a link the install made) is copied: taking it
            // would change a file outside the snapshot
            if (link && links == 1) Files.createLink(target, file);
            else Files.copy(file, target, LinkOption.NOFOLLOW_LINKS);
            if (((Number) Files.getAttribute(target, "unix:uid", LinkOption.NOFOLLOW_LINKS)).intValue() != owner) {
                Files.setAttribute(target, "unix:uid", owner, LinkOption.NOFOLLOW_LINKS);
                Files.setAttribute(target, "unix:gid", owner, LinkOption.NOFOLLOW_LINKS);
            }
            Files.setPosixFilePermissions(target, readOnly(posix.permissions()));
            bytes[0] += posix.size();
        });
        return bytes[0];
    }

    /**
     * Puts a snapshot's tree {@code from} at {@code to}, which must not exist: folders and links are new and
     * handed over to the project, files are linked (with {@code link}) or copied and handed over writable.
     * {@code to} is handed over first; what is made below it then gets the same owner with one
     * {@code lchown} each (a hand-over walks its tree, too slow for every entry of a node_modules).
     */
    static void restore(Path from, Path to, boolean link, HandOver handOver) throws IOException {
        Files.createDirectory(to);
        handOver.apply(to);
        int uid = ((Number) Files.getAttribute(to, "unix:uid", LinkOption.NOFOLLOW_LINKS)).intValue();
        int gid = ((Number) Files.getAttribute(to, "unix:gid", LinkOption.NOFOLLOW_LINKS)).intValue();
        int self = ((Number) Files.getAttribute(from, "unix:uid", LinkOption.NOFOLLOW_LINKS)).intValue(); // the server's
        HandOver own = p -> {
            if (uid != self) {
                Files.setAttribute(p, "unix:uid", uid, LinkOption.NOFOLLOW_LINKS);
                Files.setAttribute(p, "unix:gid", gid, LinkOption.NOFOLLOW_LINKS);
            }
        };
        Trees.mirror(from, to, new Trees.Mirror() {
            @Override
            public void file(Path file, Path target, BasicFileAttributes attrs) throws IOException {
                boolean rewritten = file.getParent().equals(from) && file.getFileName().toString().startsWith(HIDDEN);
                if (link && !rewritten) {
                    Files.createLink(target, file);
                } else {
                    Files.copy(file, target, LinkOption.NOFOLLOW_LINKS);
                    var perms = Files.getPosixFilePermissions(target, LinkOption.NOFOLLOW_LINKS);
                    perms.add(PosixFilePermission.OWNER_WRITE);
                    Files.setPosixFilePermissions(target, perms);
                    own.apply(target);
                }
            }

            @Override
            public void made(Path folderOrLink) throws IOException {
                own.apply(folderOrLink);
            }
        });
    }

    /** r for all, x for all where the owner had it; no write, no set-id bits. */
    private static Set<PosixFilePermission> readOnly(Set<PosixFilePermission> current) {
        Set<PosixFilePermission> perms = EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.GROUP_READ,
                PosixFilePermission.OTHERS_READ);
        if (current.contains(PosixFilePermission.OWNER_EXECUTE)) {
            perms.addAll(EnumSet.of(PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.GROUP_EXECUTE,
                    PosixFilePermission.OTHERS_EXECUTE));
        }
        return perms;
    }
}
