package dev.slipway.build;

import dev.slipway.core.FileTrees;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/** File-tree operations of the build: copy a source tree, measure, freeze and delete an artifact. */
public final class Trees {
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
     * and returns the bytes of its regular files. It runs on every build, between the install and the
     * app's start, so it is one {@code lstat} (and a {@code chmod} when needed) per entry. A directory
     * loses its write permission after everything below it is done. Symbolic links are left as they are
     * (chmod would follow them); their targets inside the tree are frozen as entries of their own.
     */
    static long freeze(Path dir, Set<String> keepWritable) throws IOException {
        Set<Path> writable = keepWritable.stream().map(dir::resolve).collect(Collectors.toSet());
        PosixFileAttributes attrs = Files.readAttributes(dir, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (!attrs.isDirectory()) throw new NotDirectoryException(dir.toString());
        return freezeDirectory(dir, attrs, writable);
    }

    private static long freezeDirectory(Path dir, PosixFileAttributes own, Set<Path> writable) throws IOException {
        long total = 0;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path entry : entries) {
                PosixFileAttributes attrs = Files.readAttributes(entry, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                if (attrs.isDirectory()) {
                    if (!writable.contains(entry)) total += freezeDirectory(entry, attrs, writable);
                } else if (attrs.isRegularFile()) {
                    total += attrs.size();
                    dropWrite(entry, attrs.permissions());
                }
            }
        }
        dropWrite(dir, own.permissions());
        return total;
    }

    /** What {@link #mirror} does with what it makes: the folders and links it made, and each regular file. */
    public interface Mirror {
        void file(Path file, Path target, BasicFileAttributes attrs) throws IOException;

        default void made(Path folderOrLink) throws IOException {}
    }

    /**
     * Rebuilds the tree {@code from} (a folder or a single file) at {@code to}: folders made (a folder already at
     * {@code to} is kept), symbolic links copied as links and never followed, each regular file given to
     * {@code files}; anything else is left out.
     */
    public static void mirror(Path from, Path to, Mirror files) throws IOException {
        Files.createDirectories(to.getParent());
        Files.walkFileTree(from, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                Path target = to.resolve(from.relativize(dir).toString());
                if (dir.equals(from) && Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS)) return FileVisitResult.CONTINUE;
                Files.createDirectory(target);
                files.made(target);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Path target = to.resolve(from.relativize(file).toString());
                if (attrs.isSymbolicLink()) {
                    Files.createSymbolicLink(target, Files.readSymbolicLink(file));
                    files.made(target);
                } else if (attrs.isRegularFile()) {
                    files.file(file, target, attrs);
                }
                return FileVisitResult.CONTINUE;
            }
        });
    }

    /**
     * Copies a tree as hard links to its files (symbolic links copied as links, never followed): a snapshot
     * that costs no data, and stays whole while the original's files are unlinked. {@code to} must be on
     * the same file system.
     */
    public static void linkCopy(Path from, Path to) throws IOException {
        mirror(from, to, (file, target, attrs) -> Files.createLink(target, file));
    }

    /**
     * Whether {@code inside} is below {@code root} without a symbolic link on the way, itself included. The
     * server works as root on trees a tenant's build wrote: a link there must never lead it elsewhere.
     */
    public static boolean linkFree(Path root, Path inside) {
        if (!inside.normalize().startsWith(root.normalize())) return false;
        Path p = root;
        for (Path part : root.relativize(inside)) {
            if (part.toString().isEmpty()) continue;
            p = p.resolve(part);
            if (Files.isSymbolicLink(p)) return false;
        }
        return true;
    }

    /** Deletes a tree, frozen or not; a missing tree is fine. */
    public static void delete(Path dir) {
        FileTrees.delete(dir);
    }

    private static void dropWrite(Path p, Set<PosixFilePermission> current) throws IOException {
        if (Collections.disjoint(current, WRITE)) return;
        var perms = EnumSet.noneOf(PosixFilePermission.class);
        perms.addAll(current);
        perms.removeAll(WRITE);
        Files.setPosixFilePermissions(p, perms);
    }

    /**
     * Deletes everything under {@code root} but {@code keep} and the folders leading to it: a static site's
     * artifact holds only the site, not the packages and sources that built it. Returns the bytes freed.
     */
    static long keepOnly(Path root, Path keep) throws IOException {
        if (!keep.startsWith(root) || keep.equals(root)) return 0;
        long freed = 0;
        Path dir = root;
        for (Path part : root.relativize(keep)) {
            Path next = dir.resolve(part);
            List<Path> others;
            try (var entries = Files.list(dir)) {
                others = entries.filter(e -> !e.equals(next)).toList();
            }
            for (Path other : others) {
                freed += size(other);
                delete(other);
            }
            dir = next;
        }
        return freed;
    }

    /** The bytes of a tree's regular files. */
    public static long size(Path p) throws IOException {
        try (var walk = Files.walk(p)) {
            return walk.filter(f -> Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)).mapToLong(f -> f.toFile().length()).sum();
        }
    }
}
