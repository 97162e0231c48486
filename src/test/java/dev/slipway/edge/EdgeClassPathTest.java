package dev.slipway.edge;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

import static org.assertj.core.api.Assertions.assertThat;

/** What the edge process runs from: a copy of the launcher's jar (with its libraries), or a class path as it is. */
class EdgeClassPathTest {
    @TempDir
    Path dir;

    @Test
    void aLaunchersJarIsCopiedAndItsLibrariesNamedByAbsolutePath() throws IOException {
        Path target = Files.createDirectories(dir.resolve("target"));
        Path jar = target.resolve("slipway.jar");
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.CLASS_PATH, "lib/picocli-4.7.7.jar lib/jetty-server-12.1.12.jar");
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out, manifest)) {
            j.flush();
        }
        Path data = Files.createDirectories(dir.resolve("data"));
        Files.writeString(data.resolve("edge-1-2.jar"), "an earlier version's copy");

        String cp = EdgeLink.classPath(jar.toString(), data);

        String[] parts = cp.split(File.pathSeparator);
        assertThat(parts).hasSize(3);
        Path copy = Path.of(parts[0]);
        assertThat(copy.getParent()).isEqualTo(data);
        assertThat(copy.getFileName().toString()).matches("edge-\\d+-\\d+\\.jar");
        assertThat(Files.mismatch(copy, jar)).as("a copy of the jar").isEqualTo(-1);
        assertThat(parts[1]).isEqualTo(target.resolve("lib/picocli-4.7.7.jar").toString());
        assertThat(parts[2]).isEqualTo(target.resolve("lib/jetty-server-12.1.12.jar").toString());
        assertThat(data.resolve("edge-1-2.jar")).as("an earlier copy").doesNotExist();
        assertThat(EdgeLink.classPath(jar.toString(), data)).as("the same jar again").isEqualTo(cp);
    }

    @Test
    void aClassPathOfDirectoriesIsKeptAsItIs() throws IOException {
        String cp = "target/classes" + File.pathSeparator + "lib/a.jar";
        assertThat(EdgeLink.classPath(cp, dir)).isEqualTo(cp);
    }
}
