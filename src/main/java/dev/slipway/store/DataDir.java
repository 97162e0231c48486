package dev.slipway.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * The data dir holds the store, the secret key, uploads, artifacts and workspaces: only the server's user
 * may enter it (700), and the key files are 600. A data dir made by an older version is narrowed at start.
 */
public final class DataDir {
    private static final Set<PosixFilePermission> DIR = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> KEY = PosixFilePermissions.fromString("rw-------");
    private static final String[] KEY_FILES = {"secret.key", EmbeddedStore.PASSWORD_FILE};

    private DataDir() {}

    public static Path prepare(Path dataDir) throws IOException {
        Files.createDirectories(dataDir);
        if (!Files.getPosixFilePermissions(dataDir).equals(DIR)) Files.setPosixFilePermissions(dataDir, DIR);
        for (String name : KEY_FILES) {
            Path key = dataDir.resolve(name);
            if (Files.isRegularFile(key) && !Files.getPosixFilePermissions(key).equals(KEY)) Files.setPosixFilePermissions(key, KEY);
        }
        return dataDir;
    }
}
