package dev.slipway.isolation;

import dev.slipway.store.Database;
import dev.slipway.store.Dialect;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.TestStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A cell whose {@code /} is an image's root file system (a busybox image made here, with no libc and no host
 * program in it): its program runs as the project's uid whatever the image holds, and a hostile image gets
 * nothing more than a cell of the host's layout does. Its setuid-root binary runs as the project's uid, its root is
 * read-only, the host's {@code /etc} and the server's data are not there, and a loader variable reaches the program
 * only (the launchers run without it).
 */
@EndToEnd
class ImageCellTest {
    /** What the image's program reports; the "secret" is only in the host's own files. */
    private static final String PROBE = """
            echo "uid $(id -u)"
            echo "setuid-root binary euid $(/sbin/busybox id -u)"
            echo "loader variable ${LD_PRELOAD:-none}"
            if touch /pwned 2>/dev/null; then echo "root written"; else echo "root read-only"; fi
            if [ -e /etc/shadow ]; then echo "host etc visible"; else echo "host etc absent"; fi
            if [ -e "$DATA_DIR" ]; then echo "data dir visible"; else echo "data dir absent"; fi
            echo "resolver $(cat /etc/resolv.conf | grep nameserver | head -1)"
            echo "workdir $(pwd)"
            """;

    static TestStore store;
    static Database database;
    static Path image;

    @BeforeAll
    static void start() throws IOException {
        assertThat(SandboxTools.detect().missing()).as("the sandbox's tools (.ci/run installs them)").isEmpty();
        assertThat(Path.of("/usr/bin/busybox")).as("busybox-static: apt-get install busybox-static (.ci/run installs it)").isExecutable();
        store = TestStore.create(Dialect.H2);
        database = Database.open(store.jdbcUrl(), 2);
        image = Files.createTempDirectory(Path.of("/var/tmp"), "slipway-image-");
        Files.setPosixFilePermissions(image, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path bin = Files.createDirectories(image.resolve("bin"));
        Files.copy(Path.of("/usr/bin/busybox"), bin.resolve("busybox"));
        for (String applet : List.of("sh", "id", "cat", "grep", "head", "touch", "pwd")) {
            Files.createSymbolicLink(bin.resolve(applet), Path.of("busybox"));
        }
        // a setuid-root program, as an image can hold (owned by root: the test runs as root)
        Path sbin = Files.createDirectories(image.resolve("sbin"));
        Files.copy(Path.of("/usr/bin/busybox"), sbin.resolve("busybox"), StandardCopyOption.COPY_ATTRIBUTES);
        Files.setAttribute(sbin.resolve("busybox"), "unix:mode", 04755);
        Files.createDirectories(image.resolve("app"));
        Files.writeString(image.resolve("app/probe.sh"), PROBE);
        // where the image's resolv.conf was a link out of its root, the cell's own replaces it
        Files.createDirectories(image.resolve("etc"));
        Files.createSymbolicLink(image.resolve("etc/resolv.conf"), Path.of("/etc/resolv.conf"));
        ImageRoot.prepare(image, List.of(Path.of("/app")));
    }

    @AfterAll
    static void stop() {
        if (database != null) database.close();
        if (store != null) store.close();
        if (image != null) TestStore.deleteTree(image);
    }

    @Test
    void theImagesProgramRunsAsTheProjectsUidAndGetsNothingOfTheHost() throws Exception {
        String scope = "img" + UUID.randomUUID().toString().substring(0, 8);
        Sandbox sandbox = new Sandbox(SandboxTools.detect().tools(), new Identities(database.jdbi()),
                new NetworkPolicy(List.of(), List.of(), Set.of()), Path.of("/run/slipway-test", scope), scope, 0);
        try {
            Cell cell = new Cell("c-" + scope, "prj_" + scope, List.of("/bin/sh", "probe.sh"), Path.of("/app"),
                    Map.of("PATH", "/bin:/sbin", "LD_PRELOAD", "/app/evil.so", "DATA_DIR", store.dataDir().toString()),
                    List.of(), List.of(), List.of(), new Limits(128 * Limits.MB, 500, 64, 16 * Limits.MB), 0, true, null, false, image);
            Confined confined = sandbox.start(cell);
            try {
                String out = new String(confined.process().getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                String err = new String(confined.process().getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
                assertThat(confined.process().waitFor()).as(out + err).isZero();
                List<String> lines = out.lines().toList();
                String uid = lines.getFirst().substring("uid ".length());
                assertThat(Integer.parseInt(uid)).as("the project's uid, not root").isPositive();
                assertThat(lines).as(out + err).containsExactly(
                        "uid " + uid,
                        "setuid-root binary euid " + uid,
                        "loader variable /app/evil.so",
                        "root read-only",
                        "host etc absent",
                        "data dir absent",
                        "resolver nameserver 169.254.0.53",
                        "workdir /app");
            } finally {
                confined.release();
            }
        } finally {
            sandbox.close();
        }
    }

    @Test
    void anImageRootWhoseMountPointIsALinkOutOfItIsRefused() throws IOException {
        Path root = Files.createTempDirectory(Path.of("/var/tmp"), "slipway-image-link-");
        try {
            Files.createSymbolicLink(root.resolve("tmp"), Path.of("/etc"));
            assertThatThrownBy(() -> ImageRoot.prepare(root, List.of())).isInstanceOf(IOException.class).hasMessageContaining("/tmp is a link");
        } finally {
            TestStore.deleteTree(root);
        }
    }

    @Test
    void withoutTheSandboxAnImageDoesNotRun() {
        Cell cell = new Cell("c-plain", "prj_plain", List.of("/bin/sh", "probe.sh"), Path.of("/app"), Map.of(), List.of(),
                List.of(), List.of(), new Limits(0, 0, 0, 0), 0, false, null, false, image);
        assertThatThrownBy(() -> new Unconfined().start(cell)).isInstanceOf(IOException.class).hasMessageContaining("only in the sandbox");
    }
}
