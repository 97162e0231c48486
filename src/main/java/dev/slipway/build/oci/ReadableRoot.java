package dev.slipway.build.oci;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * An unpacked image's files made readable to the app. umoci unpacks rootless, so every file is the server's with the
 * mode the layers gave its owner (root, or the image's {@code USER}); the app runs as the project's uid whatever
 * {@code USER} says, and would be refused what the image keeps at 0600 or behind a 0700 folder. So group and others
 * get what the owner may read and run, and no write (the root is read-only in the cell anyway), and setuid and setgid
 * bits go: inert in a cell (no-new-privs), they must not sit on the host as root's either.
 */
final class ReadableRoot {
    private static final int SET_IDS = 06000;
    private static final int OTHERS_WRITE = 0022;
    private static final int OWNER_READ = 0400;
    private static final int OWNER_EXEC = 0100;

    private ReadableRoot() {}

    /** Answers how many files and folders it changed. Symbolic links are not followed. */
    static int apply(Path rootfs) throws IOException {
        int[] changed = {0};
        Files.walkFileTree(rootfs, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                if (fix(dir)) changed[0]++;
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                if (attrs.isRegularFile() && fix(file)) changed[0]++;
                return FileVisitResult.CONTINUE;
            }
        });
        return changed[0];
    }

    static int mode(int mode) {
        int out = mode & ~(SET_IDS | OTHERS_WRITE);
        if ((mode & OWNER_READ) != 0) out |= 0044;
        if ((mode & OWNER_EXEC) != 0) out |= 0011;
        return out;
    }

    private static boolean fix(Path p) throws IOException {
        int mode = (int) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS) & 07777;
        int wanted = mode(mode);
        if (wanted == mode) return false;
        Files.setAttribute(p, "unix:mode", wanted, LinkOption.NOFOLLOW_LINKS);
        return true;
    }
}
