package dev.slipway.build;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/** File-tree operations of the build: copy a source tree, measure, freeze and delete an artifact. */
final class Trees {
    private static final Set<PosixFilePermission> WRITE = EnumSet.of(PosixFilePermission.OWNER_WRITE,
            PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_WRITE);

    private Trees() {}

    /**
     * Copies a source tree, without {@code .git}. Symbolic links are copied as links, but only when they
     * point inside the tree: a link to {@code /etc} must not end up in a served artifact.
     */
    static void copySource(Path from, Path to) throws IOException {
        Path root = from.toAbsolutePath().normalize();
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                if (!dir.equals(root) && dir.getFileName().toString().equals(".git")) return FileVisitResult.SKIP_SUBTREE;
                Files.createDirectories(to.resolve(root.relativize(dir).toString()));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Path target = to.resolve(root.relativize(file).toString());
                if (attrs.isSymbolicLink()) {
                    Path link = Files.readSymbolicLink(file);
                    if (!file.getParent().resolve(link).normalize().startsWith(root)) {
                        throw new BuildException("the source has a symbolic link that points outside it: "
                                + root.relativize(file) + " -> " + link);
                    }
                    Files.createSymbolicLink(target, link);
                } else if (attrs.isRegularFile()) {
                    Files.copy(file, target, StandardCopyOption.COPY_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
                    var perms = Files.getPosixFilePermissions(target);
                    if (perms.add(PosixFilePermission.OWNER_WRITE)) Files.setPosixFilePermissions(target, perms); // the build may rewrite it
                }
                return FileVisitResult.CONTINUE;
            }
        });
    }

    /**
     * Removes every write permission in the tree, except under the given relative paths (runtime caches),
     * and returns the bytes of its regular files: one walk for both, as it runs on every build.
     */
    static long freeze(Path dir, Set<String> keepWritable) throws IOException {
        Set<Path> writable = keepWritable.stream().map(dir::resolve).collect(java.util.stream.Collectors.toSet());
        AtomicLong total = new AtomicLong();
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) {
                return writable.contains(d) ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                if (attrs.isRegularFile()) {
                    total.addAndGet(attrs.size());
                    // the walk's attributes are POSIX ones on Linux: no second stat per file
                    if (attrs instanceof java.nio.file.attribute.PosixFileAttributes posix) dropWrite(file, posix.permissions());
                    else dropWrite(file);
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                if (e != null) throw e;
                dropWrite(d);
                return FileVisitResult.CONTINUE;
            }
        });
        return total.get();
    }

    /** Deletes a tree, frozen or not; a missing tree is fine. */
    static void delete(Path dir) {
        dev.slipway.core.FileTrees.delete(dir);
    }

    private static void dropWrite(Path p) throws IOException {
        dropWrite(p, Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
    }

    private static void dropWrite(Path p, Set<java.nio.file.attribute.PosixFilePermission> current) throws IOException {
        var perms = java.util.EnumSet.noneOf(java.nio.file.attribute.PosixFilePermission.class);
        perms.addAll(current);
        if (perms.removeAll(WRITE)) Files.setPosixFilePermissions(p, perms);
    }
}
