package dev.slipway.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** A small filesystem of the test's own (a tmpfs; mounting it needs root), to fill to the last byte. */
public final class SmallDisk implements AutoCloseable {
    private final Path mount;

    private SmallDisk(Path mount) {
        this.mount = mount;
    }

    /** @param megabytes its size */
    public static SmallDisk mount(int megabytes) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("slipway-small-disk-");
        run("mount", "-t", "tmpfs", "-o", "size=" + megabytes + "m,mode=0755", "tmpfs", dir.toString());
        return new SmallDisk(dir);
    }

    public Path path() { return mount; }

    /** Writes {@code file} until the filesystem has only {@code leave} bytes left (0: not one); the bytes written. */
    public static long fill(Path file, long leave) throws IOException {
        long written = 0;
        byte[] chunk = new byte[1 << 20];
        try (OutputStream out = Files.newOutputStream(file)) {
            for (int size = chunk.length; size >= 1; size /= 2) {
                try {
                    while (Files.getFileStore(file).getUsableSpace() - size >= leave) {
                        out.write(chunk, 0, size);
                        written += size;
                    }
                } catch (IOException full) {
                    // the next, smaller size takes what is left
                }
            }
        } catch (IOException closingOnAFullDisk) {
            // what was written stays
        }
        return written;
    }

    @Override
    public void close() throws IOException, InterruptedException {
        run("umount", "-l", mount.toString());
        Files.deleteIfExists(mount);
    }

    private static void run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new AssertionError(String.join(" ", command) + " failed (a test makes a small filesystem of its own, "
                    + "and needs root for it): " + out);
        }
    }
}
