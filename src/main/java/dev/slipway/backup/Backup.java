package dev.slipway.backup;

import dev.slipway.core.Digests;
import dev.slipway.core.Json;
import dev.slipway.databases.DatabaseDumps;
import dev.slipway.store.Database;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorOutputStream;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

/**
 * Writes a backup while the server runs: a gzipped tar of the store's dump, the kept parts of the data dir
 * ({@link Layout#KEPT}) and, last, the {@link Manifest}. The store is dumped first, so every build and upload its
 * rows name is already on disk when the files are read (both are written before their rows and never change).
 * The file appears whole or not at all, readable by its owner only: it holds the keys.
 */
public final class Backup {
    private Backup() {}

    /** What was written. */
    public record Summary(Manifest manifest, long bytes) {}

    /** {@code databases}: the apps' databases to dump into it too, or null for none. */
    public static Summary write(Database db, String jdbcUrl, Path dataDir, DatabaseDumps databases, Path file, Clock clock)
            throws IOException {
        Path target = file.toAbsolutePath();
        Path dir = Files.createDirectories(target.getParent());
        Path work = Files.createTempDirectory(dir, ".slipway-backup-");
        Path partial = work.resolve("backup.tar.gz");
        try {
            Path dump = work.resolve("store");
            String dumpName = StoreDump.dump(db, jdbcUrl, dump);
            String schema = StoreDump.schema(db);
            Path dumps = Files.createDirectory(work.resolve("databases"));
            List<DatabaseDumps.Dump> dumped = databases == null ? List.of() : databases.dumpAll(dumps);
            List<Manifest.Entry> entries = new ArrayList<>();
            Manifest manifest;
            try (OutputStream out = Files.newOutputStream(partial);
                 TarArchiveOutputStream tar = new TarArchiveOutputStream(new GzipCompressorOutputStream(out))) {
                tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
                tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
                entries.add(add(tar, dump, dumpName));
                for (DatabaseDumps.Dump d : dumped) {
                    entries.add(add(tar, dumps.resolve(d.id() + ".sql"), Layout.DATABASES + d.id() + ".sql"));
                }
                for (String kept : Layout.KEPT) {
                    Path source = dataDir.resolve(kept);
                    if (!Files.exists(source, LinkOption.NOFOLLOW_LINKS)) continue;
                    try (Stream<Path> walk = Files.walk(source)) {
                        for (Path p : walk.sorted().toList()) {
                            if (!Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) continue; // folders come with their files; links are not kept
                            entries.add(add(tar, p, Layout.DATA + dataDir.relativize(p).toString().replace('\\', '/')));
                        }
                    }
                }
                manifest = new Manifest(Manifest.FORMAT, db.dialect().name().toLowerCase(), schema, clock.instant(),
                        dataDir.toAbsolutePath().normalize().toString(), List.copyOf(entries));
                byte[] json = Json.write(manifest).getBytes(StandardCharsets.UTF_8);
                TarArchiveEntry e = new TarArchiveEntry(Manifest.NAME);
                e.setSize(json.length);
                e.setMode(0600);
                tar.putArchiveEntry(e);
                tar.write(json);
                tar.closeArchiveEntry();
                tar.finish();
            }
            // closed, so whole: only now does it take the file's name
            Files.setPosixFilePermissions(partial, PosixFilePermissions.fromString("rw-------"));
            Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            return new Summary(manifest, Files.size(target));
        } finally {
            Restore.delete(work);
        }
    }

    private static Manifest.Entry add(TarArchiveOutputStream tar, Path file, String name) throws IOException {
        long size = Files.size(file);
        TarArchiveEntry e = new TarArchiveEntry(name);
        e.setSize(size);
        e.setMode(Files.isExecutable(file) ? 0700 : 0600);
        e.setModTime(Files.getLastModifiedTime(file));
        tar.putArchiveEntry(e);
        MessageDigest sha = Digests.sha256();
        try (InputStream in = new DigestInputStream(Files.newInputStream(file), sha)) {
            long copied = in.transferTo(tar);
            if (copied != size) throw new IOException(name + " changed while it was copied");
        }
        tar.closeArchiveEntry();
        return new Manifest.Entry(name, size, HexFormat.of().formatHex(sha.digest()));
    }

}
