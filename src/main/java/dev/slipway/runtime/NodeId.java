package dev.slipway.runtime;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;

/**
 * This server's identity in the shared store, kept in its data dir: after a restart it finds the
 * instances it ran; a second server on the same PostgreSQL leaves them alone.
 */
public final class NodeId {
    private NodeId() {}

    public static String load(Path dataDir) throws IOException {
        Path file = dataDir.resolve("node-id");
        if (!Files.exists(file)) {
            Files.createDirectories(dataDir);
            try {
                Files.writeString(Files.createFile(file), "node_" + UUID.randomUUID().toString().replace("-", ""));
            } catch (FileAlreadyExistsException raced) {
                // another process wrote it first; use theirs
            }
        }
        String id = Files.readString(file).trim();
        if (!id.matches("[A-Za-z0-9_-]{1,100}")) throw new IOException(file + " does not hold a node id");
        return id;
    }
}
