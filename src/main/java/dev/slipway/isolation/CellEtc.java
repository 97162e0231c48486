package dev.slipway.isolation;

import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * The {@code /etc} a cell sees: not the host's, where an operator may keep a world-readable key or config, but
 * a directory of the cell's own holding its {@code passwd} and {@code group} (root, nobody and the project's uid),
 * its {@code resolv.conf} ({@link CellDns}), and read-only what its programs need of the host's: name service
 * and hosts, the dynamic loader's cache, the CA certificates and OpenSSL's config, time zone and locale
 * aliases, MIME types, the alternatives' links, and Python's, pip's, npm's and git's system config. The files
 * it makes live in the run dir, named {@code cell-*}.
 */
final class CellEtc {
    /** What of the host's {@code /etc} a cell sees, where it exists, besides {@code python3*}. */
    static final List<String> FROM_HOST = List.of(
            "hosts", "host.conf", "nsswitch.conf", "gai.conf", "services", "protocols",
            "ld.so.cache", "ld.so.conf", "ld.so.conf.d",
            "localtime", "timezone", "locale.alias", "locale.conf", "mime.types", "mtab",
            "os-release", "debian_version", "lsb-release", "alternatives",
            "ssl/certs", "ssl/cert.pem", "ssl/openssl.cnf", "ca-certificates", "ca-certificates.conf",
            "pki/tls/certs", "pki/tls/cert.pem", "pki/tls/openssl.cnf", "pki/ca-trust/extracted", "crypto-policies/back-ends",
            "gitconfig", "npmrc", "pip.conf", "xdg/pip");
    private static final Path HOST = Path.of("/etc");
    static final String PREFIX = "cell-";

    private final Path runDir;
    private final Path resolv;
    private final String resolvConf;
    /** bubblewrap's arguments for all but passwd and group: the same for every cell of this server. */
    private final List<String> shared;

    CellEtc(Path runDir, CellDns dns) throws IOException {
        this.runDir = runDir;
        this.resolvConf = dns.cellConf();
        this.resolv = write(runDir.resolve(PREFIX + "resolv.conf"), resolvConf);
        List<String> a = new ArrayList<>(List.of("--perms", "0755", "--dir", "/etc"));
        TreeSet<String> dirs = new TreeSet<>();
        List<String> entries = new ArrayList<>(FROM_HOST);
        try (var top = Files.list(HOST)) {
            top.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("python3")).sorted().forEach(entries::add);
        }
        List<String> binds = new ArrayList<>();
        for (String entry : entries) {
            Path host = HOST.resolve(entry);
            if (!Files.exists(host, LinkOption.NOFOLLOW_LINKS)) continue;
            for (Path d = Path.of(entry).getParent(); d != null; d = d.getParent()) dirs.add(d.toString());
            if (Files.isSymbolicLink(host)) {
                binds.addAll(List.of("--symlink", Files.readSymbolicLink(host).toString(), host.toString()));
            } else {
                binds.addAll(List.of("--ro-bind", host.toString(), host.toString()));
            }
        }
        for (String d : dirs) a.addAll(List.of("--perms", "0755", "--dir", "/etc/" + d)); // parents first: sorted
        a.addAll(binds);
        a.addAll(List.of("--ro-bind", resolv.toString(), "/etc/resolv.conf"));
        this.shared = List.copyOf(a);
    }

    /** bubblewrap's arguments that make the {@code /etc} of a cell that runs as {@code uid}. */
    List<String> args(int uid) throws IOException {
        Path passwd = runDir.resolve(PREFIX + "passwd." + uid);
        Path group = runDir.resolve(PREFIX + "group." + uid);
        // another server of this JVM on the same run dir (tests) may have removed them at its close
        if (!Files.exists(resolv)) write(resolv, resolvConf);
        if (!Files.exists(passwd)) {
            write(passwd, "root:x:0:0:root:/root:/usr/sbin/nologin\n"
                    + "app:x:" + uid + ":" + uid + ":app:/tmp:/usr/sbin/nologin\n"
                    + "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n");
        }
        if (!Files.exists(group)) write(group, "root:x:0:\napp:x:" + uid + ":\nnogroup:x:65534:\n");
        List<String> a = new ArrayList<>(shared);
        a.addAll(List.of("--ro-bind", passwd.toString(), "/etc/passwd", "--ro-bind", group.toString(), "/etc/group"));
        return a;
    }

    /** An image's cell keeps the image's {@code /etc} but for its resolv.conf, which names pasta's forwarder. */
    List<String> imageArgs() throws IOException {
        return List.of("--ro-bind", resolvConf().toString(), "/etc/resolv.conf");
    }

    /** The resolv.conf every cell sees, naming pasta's forwarder. */
    Path resolvConf() throws IOException {
        if (!Files.exists(resolv)) write(resolv, resolvConf);
        return resolv;
    }

    /** Removes the files it made (cells that still run keep theirs: they are bound). */
    void remove() {
        try (var files = Files.list(runDir)) {
            for (Path p : files.toList()) {
                if (p.getFileName().toString().startsWith(PREFIX)) Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            // the run dir is gone already
        }
    }

    /** Written whole or not at all: cells of one uid starting at once find a complete file. */
    private static Path write(Path file, String content) throws IOException {
        Path tmp = Files.createTempFile(file.getParent(), PREFIX + "tmp", null);
        try {
            Files.writeString(tmp, content);
            Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-r--r--"));
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
        return file;
    }
}
