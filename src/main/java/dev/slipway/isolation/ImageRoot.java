package dev.slipway.isolation;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * An image's root file system as a cell's {@code /}. The cell's launchers (setpriv, and a shell when variables are
 * held) are the host's, seen inside at {@link #HOST_USR} (the host's {@code /usr}, read-only, as every cell sees
 * it) and run through the host's dynamic loader there, so that they work in any image, one without a libc or a
 * shell included. The image's own programs run as usual once setpriv has dropped to the project's uid.
 */
public final class ImageRoot {
    /** Where a cell of an image sees the host's {@code /usr}. */
    static final Path HOST_USR = Path.of("/.slipway/usr");
    private static final Path USR = Path.of("/usr");
    private static final List<Path> LOADERS = List.of(Path.of("/lib64/ld-linux-x86-64.so.2"), Path.of("/lib/ld-linux-aarch64.so.1"));
    private static final List<String> DIRS = List.of("proc", "dev", "tmp", "etc", ".slipway/usr");

    private ImageRoot() {}

    /**
     * Makes the mount points a cell needs in {@code rootfs} (its {@code /proc}, {@code /dev}, {@code /tmp}, its
     * {@code /etc/resolv.conf} and {@link #HOST_USR}) where the image has none, and {@code workDir} and each scratch
     * directory. The server does this, as root, before the root is read-only to every cell.
     *
     * @throws IOException when one is there as something else (a file, or a link: never followed out of the root)
     */
    public static void prepare(Path rootfs, List<Path> insideDirs) throws IOException {
        List<Path> dirs = new ArrayList<>();
        for (String d : DIRS) dirs.add(Path.of(d));
        for (Path p : insideDirs) dirs.add(Path.of("/").relativize(p));
        for (Path d : dirs) {
            Path at = rootfs;
            for (Path part : d) {
                at = at.resolve(part);
                if (Files.isSymbolicLink(at)) throw new IOException("the image's /" + rootfs.relativize(at) + " is a link");
                if (!Files.exists(at, LinkOption.NOFOLLOW_LINKS)) Files.createDirectory(at);
                else if (!Files.isDirectory(at, LinkOption.NOFOLLOW_LINKS)) {
                    throw new IOException("the image's /" + rootfs.relativize(at) + " is not a directory");
                }
            }
        }
        Path resolv = rootfs.resolve("etc/resolv.conf");
        if (Files.isSymbolicLink(resolv) || Files.isDirectory(resolv, LinkOption.NOFOLLOW_LINKS)) Files.delete(resolv);
        if (!Files.exists(resolv, LinkOption.NOFOLLOW_LINKS)) Files.createFile(resolv);
    }

    /** The argv start that runs a host program (under {@code /usr}) inside an image's cell. */
    static List<String> hostProgram(Path program) throws IOException {
        Path loader = null;
        for (Path l : LOADERS) {
            if (Files.exists(l)) {
                loader = l.toRealPath();
                break;
            }
        }
        if (loader == null || !loader.startsWith(USR)) throw new IOException("no dynamic loader of the host under /usr");
        Path real = program.toRealPath();
        if (!real.startsWith(USR)) throw new IOException(program + " is not under /usr");
        return List.of(inside(loader).toString(), "--library-path", inside(loader.getParent()).toString(), inside(real).toString());
    }

    private static Path inside(Path underUsr) {
        return HOST_USR.resolve(USR.relativize(underUsr));
    }
}
