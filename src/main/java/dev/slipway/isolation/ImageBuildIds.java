package dev.slipway.isolation;

import dev.slipway.core.FileTrees;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * What a project's uid needs to build an image rootless, seen only inside its image build's mount namespace: a
 * passwd and group entry (buildah looks its user up) and a subordinate id range of {@value #RANGE} ids in
 * {@code /etc/subuid} and {@code /etc/subgid} (the setuid {@code newuidmap} maps it into buildah's user namespace,
 * where a {@code RUN} step is root). The host's own files are never written. Ranges start at {@value #FIRST}, above
 * every pasta's and project's uid, one per project uid, never overlapping.
 */
final class ImageBuildIds {
    static final long FIRST = 2_000_000_000L;
    static final int RANGE = 65_536;
    private static final long LAST = 4_294_967_294L;

    /**
     * Run as root inside the new mount namespace, with {@code hidden ids-dir uid setpriv resolv.conf [rw:|ro:]path… -- command…}:
     * keeps each bind aside under a private {@code /dev/shm} (never the data dir, which is about to be hidden), puts
     * the uid's files and the cells' resolv.conf over the host's, empties {@code hidden} and {@code /tmp}, puts each bind back at its path
     * (read-only where asked), and drops to the uid.
     */
    static final String MOUNTS = """
            set -e
            hidden=$1; ids=$2; uid=$3; setpriv=$4; resolv=$5; shift 5
            mount -t tmpfs -o mode=0700,size=64k slipway-aside /dev/shm
            i=0
            for b in "$@"; do
              [ "$b" = -- ] && break
              i=$((i+1)); mkdir /dev/shm/$i; mount --bind "${b#r?:}" /dev/shm/$i
            done
            for f in passwd group subuid subgid; do mount --bind "$ids/$f" /etc/$f; done
            # the host's resolver is behind the cell's firewall; pasta's forwarder is not (a symbolic link is followed)
            if [ -e /etc/resolv.conf ]; then mount --bind "$resolv" /etc/resolv.conf; fi
            mount -t tmpfs -o mode=0755,size=64k slipway-hidden "$hidden"
            mount -t tmpfs -o mode=1777,size=64m slipway-tmp /tmp
            i=0
            while [ "$1" != -- ]; do
              i=$((i+1)); p=${1#r?:}; mkdir -p "$p"; mount --bind /dev/shm/$i "$p"
              case "$1" in ro:*) mount -o remount,bind,ro "$p";; esac
              shift
            done
            shift
            umount -l /dev/shm
            exec "$setpriv" --reuid="$uid" --regid="$uid" --clear-groups -- "$@"
            """;

    private final Path dir;

    ImageBuildIds(Path runDir) {
        this.dir = runDir.resolve("ids");
    }

    /** The folder holding the uid's passwd, group, subuid and subgid, written once. */
    Path forUid(int uid) throws IOException {
        Path own = dir.resolve(Integer.toString(uid));
        if (Files.isRegularFile(own.resolve("subgid"))) return own;
        long first = FIRST + (long) (uid - Identities.FIRST_UID) * RANGE;
        if (uid < Identities.FIRST_UID || first + RANGE - 1 > LAST) {
            throw new IOException("the uid " + uid + " has no room for a subordinate id range");
        }
        Files.createDirectories(dir);
        Path tmp = Files.createTempDirectory(dir, "new-");
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
        String name = "p" + uid;
        write(tmp.resolve("passwd"), "root:x:0:0:root:/root:/usr/sbin/nologin\n" + name + ":x:" + uid + ":" + uid
                + "::/nonexistent:/usr/sbin/nologin\n");
        write(tmp.resolve("group"), "root:x:0:\n" + name + ":x:" + uid + ":\n");
        write(tmp.resolve("subuid"), uid + ":" + first + ":" + RANGE + "\n");
        write(tmp.resolve("subgid"), uid + ":" + first + ":" + RANGE + "\n");
        try {
            Files.move(tmp, own, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException raced) {
            FileTrees.delete(tmp); // another build of the uid wrote the same files first
        }
        return own;
    }

    private static void write(Path file, String text) throws IOException {
        Files.writeString(file, text);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
    }
}
