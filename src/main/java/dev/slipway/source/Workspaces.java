package dev.slipway.source;

import dev.slipway.core.FileTrees;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;

/** Creating and removing the directories sources are unpacked into. */
public final class Workspaces {
    private Workspaces() {}

    /** Creates {@code dir}; it may exist only when empty, so a source never mixes with leftovers. */
    static void prepare(Path dir) {
        try {
            if (Files.isDirectory(dir)) {
                try (var entries = Files.list(dir)) {
                    if (entries.findAny().isPresent()) throw new IllegalArgumentException("workspace " + dir + " is not empty");
                }
            } else {
                Files.createDirectories(dir);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create workspace " + dir, e);
        }
    }

    /** A new empty folder under the system's temporary folder, owner-only. */
    static Path temporary(String prefix) {
        try {
            return Files.createTempDirectory(prefix, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary folder", e);
        }
    }

    /** Deletes a tree without following links; missing is fine. */
    public static void delete(Path dir) {
        FileTrees.delete(dir);
    }
}
