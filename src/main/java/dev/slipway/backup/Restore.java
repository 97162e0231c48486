package dev.slipway.backup;

import dev.slipway.core.Digests;
import com.fasterxml.jackson.core.JacksonException;
import dev.slipway.core.FileTrees;
import dev.slipway.core.Json;
import dev.slipway.store.DataDir;
import dev.slipway.store.Database;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Restores a backup into an empty data dir, at the backup's path or another (and, for a PostgreSQL backup, an empty
 * database). The whole file is
 * read and checked against its manifest before anything is written where the server will look: a file that was
 * cut short, altered or made by hand fails with what is wrong, and the data dir stays as it was.
 */
public final class Restore {
    /** Where the apps' databases' dumps wait in the data dir while they are loaded (and stay when that fails). */
    public static final String DUMPS = "database-dumps";

    private Restore() {}

    /** Loads the apps' databases' dumps once the store is in place: their folder and ids; returns a line per database. */
    @FunctionalInterface
    public interface AppDatabases {
        List<String> load(Path dumps, List<String> ids) throws IOException;

        AppDatabases NONE = (dumps, ids) -> {
            if (!ids.isEmpty()) throw new IOException("the backup holds databases of apps and nothing was given to load them");
            return List.of();
        };
    }

    /** What a restore did. */
    public record Restored(Manifest manifest, List<String> databases) {}

    /** {@code jdbcUrl}: the empty PostgreSQL database for a PostgreSQL backup; null for an H2 one. */
    public static Manifest run(Path file, Path dataDir, String jdbcUrl) throws IOException {
        return run(file, dataDir, jdbcUrl, AppDatabases.NONE).manifest();
    }

    /**
     * As above, then the apps' databases: a dump whose loading fails is reported by the exception, with the store
     * restored already (the dumps stay in the data dir's {@code database-dumps/} to be loaded by hand).
     */
    public static Restored run(Path file, Path dataDir, String jdbcUrl, AppDatabases databases) throws IOException {
        Path target = dataDir.toAbsolutePath();
        if (Files.exists(target, LinkOption.NOFOLLOW_LINKS) && !empty(target)) {
            throw new IOException("the data dir " + target + " is not empty: restore into a new one");
        }
        Path parent = Files.createDirectories(target.getParent());
        Path staging = Files.createTempDirectory(parent, ".slipway-restore-");
        boolean created = false;
        boolean storeDone = false;
        try {
            Manifest manifest = unpack(file, staging);
            boolean postgres = manifest.store().equals("postgres");
            if (postgres && jdbcUrl == null) {
                throw new IOException("this backup holds a PostgreSQL store: restore it with --database-url of an empty database");
            }
            if (!postgres && jdbcUrl != null) {
                throw new IOException("this backup holds the embedded store: restore it without --database-url");
            }
            Path data = staging.resolve("data");
            if (!Files.isDirectory(data)) Files.createDirectory(data);
            if (Files.exists(target)) Files.delete(target);
            Files.move(data, target, StandardCopyOption.ATOMIC_MOVE);
            created = true;
            if (postgres) StoreDump.loadPostgres(staging.resolve(Layout.POSTGRES_DUMP), jdbcUrl);
            else StoreDump.loadH2(staging.resolve(Layout.H2_DUMP), target);
            String here = target.normalize().toString();
            if (manifest.dataDir() != null && !manifest.dataDir().equals(here)) {
                Relocation.run(postgres ? jdbcUrl : Database.h2Url(target), manifest.dataDir(), here);
            }
            DataDir.prepare(target);
            storeDone = true;
            List<String> ids = manifest.entries().stream().map(Manifest.Entry::name).filter(n -> n.startsWith(Layout.DATABASES))
                    .map(n -> n.substring(Layout.DATABASES.length(), n.length() - ".sql".length())).toList();
            if (ids.isEmpty()) return new Restored(manifest, List.of());
            Path dumps = target.resolve(DUMPS);
            Files.move(staging.resolve("databases"), dumps);
            List<String> loaded = databases.load(dumps, ids);
            delete(dumps);
            return new Restored(manifest, loaded);
        } catch (IOException | RuntimeException e) {
            if (created && !storeDone) delete(target);
            throw e;
        } finally {
            delete(staging);
        }
    }

    /** Unpacks every entry into {@code staging}, checking names, kinds, sizes and digests against the manifest. */
    private static Manifest unpack(Path file, Path staging) throws IOException {
        Map<String, Manifest.Entry> read = new LinkedHashMap<>();
        Manifest manifest = null;
        try (InputStream in = new BufferedInputStream(Files.newInputStream(file));
             TarArchiveInputStream tar = new TarArchiveInputStream(new GzipCompressorInputStream(in))) {
            for (TarArchiveEntry e = tar.getNextEntry(); e != null; e = tar.getNextEntry()) {
                String name = e.getName();
                if (manifest != null) throw invalid("an entry follows the manifest: " + name);
                boolean plainFile = e.getLinkFlag() == TarArchiveEntry.LF_NORMAL || e.getLinkFlag() == TarArchiveEntry.LF_OLDNORM;
                if (!plainFile || !Layout.allowed(name)) throw invalid("it holds an entry a backup never has: " + name);
                if (read.containsKey(name)) throw invalid("it holds " + name + " twice");
                if (name.equals(Manifest.NAME)) {
                    manifest = manifest(tar.readNBytes(1 << 20));
                    continue;
                }
                Path out = staging.resolve(name);
                Files.createDirectories(out.getParent());
                MessageDigest sha = Digests.sha256();
                long size;
                try (OutputStream o = new DigestOutputStream(Files.newOutputStream(out), sha)) {
                    size = tar.transferTo(o);
                }
                if ((e.getMode() & 0100) != 0) out.toFile().setExecutable(true, true);
                read.put(name, new Manifest.Entry(name, size, HexFormat.of().formatHex(sha.digest())));
            }
        } catch (IOException e) {
            if (e.getMessage() != null && e.getMessage().startsWith("Not a backup")) throw e;
            throw invalid("it cannot be read as a gzipped tar (" + e.getMessage() + ")");
        }
        if (manifest == null) throw invalid("it has no manifest (" + Manifest.NAME + "): cut short, or not a Slipway backup");
        if (manifest.format() != Manifest.FORMAT) throw invalid("its format " + manifest.format() + " is not one this version reads");
        Map<String, Manifest.Entry> listed = new LinkedHashMap<>();
        for (Manifest.Entry e : manifest.entries()) listed.put(e.name(), e);
        for (Manifest.Entry e : listed.values()) {
            Manifest.Entry got = read.get(e.name());
            if (got == null) throw invalid(e.name() + " is missing");
            if (got.size() != e.size() || !got.sha256().equals(e.sha256())) throw invalid(e.name() + " differs from its manifest");
        }
        for (String name : read.keySet()) if (!listed.containsKey(name)) throw invalid(name + " is not in its manifest");
        if (!listed.containsKey(Layout.H2_DUMP) && !listed.containsKey(Layout.POSTGRES_DUMP)) throw invalid("it holds no store");
        return manifest;
    }

    private static Manifest manifest(byte[] json) throws IOException {
        try {
            Manifest m = Json.MAPPER.readValue(json, Manifest.class);
            if (m.store() == null || m.entries() == null) throw invalid("its manifest lacks the store or the entries");
            return m;
        } catch (JacksonException e) {
            throw invalid("its manifest is not valid JSON");
        }
    }

    private static IOException invalid(String why) {
        return new IOException("Not a backup that can be restored: " + why);
    }

    private static boolean empty(Path dir) throws IOException {
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) return false;
        try (Stream<Path> s = Files.list(dir)) {
            return s.findAny().isEmpty();
        }
    }

    /**
     * Deletes a tree this class or {@link Backup} made (staging, work folders, a data dir a failed restore made), on
     * the way out of a failure too: one that cannot be deleted must not hide the failure's own exception.
     */
    static void delete(Path dir) {
        try {
            FileTrees.delete(dir);
        } catch (UncheckedIOException ignored) {
            // what is left is under a temp name, or the data dir a failed restore made
        }
    }
}
