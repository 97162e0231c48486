package dev.slipway.build;

import java.nio.file.NoSuchFileException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import static java.nio.file.attribute.PosixFilePermission.GROUP_WRITE;
import static java.nio.file.attribute.PosixFilePermission.OTHERS_WRITE;
import static java.nio.file.attribute.PosixFilePermission.OWNER_WRITE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Freezing an artifact: every file and directory loses its write bits, and nothing else changes. */
class TreesTest {
    private static final Set<PosixFilePermission> WRITE = Set.of(OWNER_WRITE, GROUP_WRITE, OTHERS_WRITE);

    @TempDir
    Path tmp;

    private static Path file(Path path, String content, String perms) throws IOException {
        Files.createDirectories(path.getParent());
        Files.writeString(path, content);
        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(perms));
        return path;
    }

    private static Set<PosixFilePermission> perms(Path p) throws IOException {
        return Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS);
    }

    private static List<Path> everything(Path root) throws IOException {
        try (Stream<Path> all = Files.walk(root)) {
            return all.filter(p -> !Files.isSymbolicLink(p)).toList();
        }
    }

    @Test
    void aDeepWideTreeIsFrozenCompletelyAndItsSizeCounted() throws IOException {
        Path root = Files.createDirectories(tmp.resolve("art"));
        long expected = 0;
        // a node_modules-like tree: many packages, some nested, more than one level of directories
        for (int pkg = 0; pkg < 120; pkg++) {
            Path dir = root.resolve("node_modules/pkg-" + pkg + (pkg % 3 == 0 ? "/lib/deep" : ""));
            for (int f = 0; f < 4; f++) {
                String content = "module.exports = " + pkg + f + ";\n".repeat(f + 1);
                file(dir.resolve("f" + f + ".js"), content, f == 3 ? "rwxrwxr-x" : "rw-rw-r--");
                expected += content.length();
            }
        }
        String app = "require('pkg-1')\n";
        file(root.resolve("app.js"), app, "rw-r--r--");
        expected += app.length();

        long size = Trees.freeze(root, Set.of());

        assertThat(size).isEqualTo(expected);
        List<Path> all = everything(root);
        assertThat(all).hasSizeGreaterThan(120 * 4 + 120);
        for (Path p : all) assertThat(perms(p)).as(p.toString()).doesNotContainAnyElementsOf(WRITE);
        // read and execute bits are kept
        assertThat(perms(root.resolve("node_modules/pkg-1/f3.js"))).isEqualTo(PosixFilePermissions.fromString("r-xr-xr-x"));
        assertThat(perms(root.resolve("node_modules/pkg-1/f0.js"))).isEqualTo(PosixFilePermissions.fromString("r--r--r--"));
        assertThat(perms(root.resolve("node_modules/pkg-3/lib/deep"))).isEqualTo(PosixFilePermissions.fromString("r-xr-xr-x"));
        assertThat(Files.readString(root.resolve("app.js"))).isEqualTo(app);
    }

    @Test
    void keptWritablePathsStayWritableAndLinksAreNotFollowed() throws IOException {
        Path root = Files.createDirectories(tmp.resolve("art"));
        Path outside = file(tmp.resolve("outside.txt"), "not ours", "rw-rw-rw-");
        file(root.resolve("server.js"), "1", "rw-r--r--");
        Path cached = file(root.resolve(".next/cache/images/a.webp"), "img", "rw-r--r--");
        file(root.resolve(".next/server/page.js"), "22", "rw-r--r--");
        Files.createSymbolicLink(root.resolve("out-link"), outside);
        Files.createDirectories(root.resolve("node_modules/.bin"));
        Files.createSymbolicLink(root.resolve("node_modules/.bin/server"), Path.of("../../server.js"));

        long size = Trees.freeze(root, Set.of(".next/cache"));

        assertThat(size).as("regular files outside the kept path; links are not counted").isEqualTo(3);
        assertThat(perms(outside)).as("a link's target outside the tree is untouched").containsAll(WRITE);
        assertThat(perms(cached)).contains(OWNER_WRITE);
        assertThat(perms(root.resolve(".next/cache"))).contains(OWNER_WRITE);
        assertThat(perms(root.resolve(".next/server/page.js"))).doesNotContainAnyElementsOf(WRITE);
        assertThat(perms(root.resolve(".next"))).doesNotContainAnyElementsOf(WRITE);
        assertThat(perms(root.resolve("server.js"))).doesNotContainAnyElementsOf(WRITE);
        assertThat(Files.readSymbolicLink(root.resolve("node_modules/.bin/server"))).isEqualTo(Path.of("../../server.js"));
    }

    @Test
    void freezingTwiceChangesNothingAndAFileIsNotADirectory() throws IOException {
        Path root = Files.createDirectories(tmp.resolve("art"));
        file(root.resolve("a/b/c.txt"), "abc", "rw-r--r--");
        assertThat(Trees.freeze(root, Set.of())).isEqualTo(3);
        assertThat(Trees.freeze(root, Set.of())).isEqualTo(3);
        assertThat(perms(root.resolve("a/b/c.txt"))).isEqualTo(PosixFilePermissions.fromString("r--r--r--"));
        assertThatThrownBy(() -> Trees.freeze(root.resolve("a/b/c.txt"), Set.of())).isInstanceOf(NotDirectoryException.class);
        assertThatThrownBy(() -> Trees.freeze(root.resolve("missing"), Set.of())).isInstanceOf(NoSuchFileException.class);
    }

    /** The snapshot of node_modules before a prune: the prune unlinks files, the snapshot keeps them, links stay links. */
    @Test
    void aLinkCopySurvivesTheOriginalsFilesBeingDeleted() throws IOException {
        Path modules = tmp.resolve("app/node_modules");
        file(modules.resolve("express/index.js"), "module.exports = 1;\n", "rw-r--r--");
        file(modules.resolve("typescript/lib/tsc.js"), "tsc\n", "rwxr-xr-x");
        Files.createDirectories(modules.resolve(".bin"));
        Files.createSymbolicLink(modules.resolve(".bin/tsc"), Path.of("../typescript/lib/tsc.js"));
        Files.createSymbolicLink(modules.resolve("outside"), Path.of("/etc/hostname"));
        Path snapshot = tmp.resolve("full/node_modules");

        Trees.linkCopy(modules, snapshot);
        Trees.delete(modules.resolve("typescript"));
        Files.delete(modules.resolve(".bin/tsc"));

        assertThat(Files.readString(snapshot.resolve("typescript/lib/tsc.js"))).isEqualTo("tsc\n");
        assertThat(perms(snapshot.resolve("typescript/lib/tsc.js"))).contains(PosixFilePermission.OWNER_EXECUTE);
        assertThat(Files.readSymbolicLink(snapshot.resolve(".bin/tsc"))).isEqualTo(Path.of("../typescript/lib/tsc.js"));
        // a link is copied as the link, never followed: nothing of /etc is copied
        assertThat(Files.isSymbolicLink(snapshot.resolve("outside"))).isTrue();
        assertThat(Files.getAttribute(snapshot.resolve("express/index.js"), "unix:ino"))
                .isEqualTo(Files.getAttribute(modules.resolve("express/index.js"), "unix:ino"));
    }
}
