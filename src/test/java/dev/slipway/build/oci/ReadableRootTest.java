package dev.slipway.build.oci;

import dev.slipway.testing.TestStore;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class ReadableRootTest {
    @Test
    void whatTheOwnerMayReadAndRunEveryoneMayNeverWriteAndNoSetIdBitSurvives() throws Exception {
        Path root = Files.createTempDirectory("slipway-readable-");
        try {
            Path secret = Files.writeString(root.resolve("secret.conf"), "key\n");
            Path hidden = Files.createDirectories(root.resolve("private"));
            Path tool = Files.writeString(hidden.resolve("tool"), "#!/bin/sh\n");
            Path writable = Files.writeString(root.resolve("log"), "");
            Path link = Files.createSymbolicLink(root.resolve("link"), secret.getFileName());
            set(root, 0755);
            set(secret, 0600);
            set(tool, 04750);
            set(hidden, 0700);
            set(writable, 0622);

            assertThat(ReadableRoot.apply(root)).isEqualTo(4);

            assertThat(mode(secret)).isEqualTo(0644);
            assertThat(mode(hidden)).isEqualTo(0755);
            assertThat(mode(tool)).as("setuid gone, group and others may run it").isEqualTo(0755);
            assertThat(mode(writable)).as("nobody but the owner writes").isEqualTo(0644);
            assertThat(Files.isSymbolicLink(link)).isTrue();
            assertThat(ReadableRoot.apply(root)).as("a second pass changes nothing").isZero();
        } finally {
            TestStore.deleteTree(root);
        }
    }

    @Test
    void theModeArithmetic() {
        assertThat(ReadableRoot.mode(0600)).isEqualTo(0644);
        assertThat(ReadableRoot.mode(0700)).isEqualTo(0755);
        assertThat(ReadableRoot.mode(06755)).isEqualTo(0755);
        assertThat(ReadableRoot.mode(01777)).as("a sticky folder stays sticky, written by its owner only").isEqualTo(01755);
        assertThat(ReadableRoot.mode(0200)).as("write-only stays unreadable").isEqualTo(0200);
        assertThat(ReadableRoot.mode(0666)).isEqualTo(0644);
        assertThat(ReadableRoot.mode(0000)).isZero();
    }

    private static void set(Path p, int mode) throws Exception {
        Files.setAttribute(p, "unix:mode", mode, LinkOption.NOFOLLOW_LINKS);
    }

    private static int mode(Path p) throws Exception {
        return (int) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS) & 07777;
    }
}
