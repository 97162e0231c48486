package dev.slipway.edge;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

import static org.assertj.core.api.Assertions.assertThat;

/** What the edge process runs from: a copy of the launcher's jar (with its libraries), or a class path as it is. */
class EdgeClassPathTest {
    @TempDir
    Path dir;

    @Test
    void aLaunchersJarIsCopiedBesideItselfAndItsLibrariesNamedByAbsolutePath() throws IOException {
        Path target = Files.createDirectories(dir.resolve("target"));
        Path jar = jar(target);
        Path data = Files.createDirectories(dir.resolve("data"));
        Files.writeString(data.resolve("edge-1-2.jar"), "a copy an earlier version made in the data dir");
        Files.writeString(target.resolve("slipway-edge-1-2.jar"), "an earlier build's copy");
        Files.writeString(target.resolve("slipway-edge-1-2.aot"), "an earlier build's cache");

        EdgeJar edge = EdgeJar.of(jar.toString(), data);

        String[] parts = edge.classPath().split(File.pathSeparator);
        assertThat(parts).hasSize(3);
        Path copy = Path.of(parts[0]);
        assertThat(copy.getParent()).isEqualTo(target);
        assertThat(copy.getFileName().toString()).matches("slipway-edge-\\d+-\\d+\\.jar");
        assertThat(Files.mismatch(copy, jar)).as("a copy of the jar").isEqualTo(-1);
        assertThat(parts[1]).isEqualTo(target.resolve("lib/picocli-4.7.7.jar").toString());
        assertThat(parts[2]).isEqualTo(target.resolve("lib/jetty-server-12.1.12.jar").toString());
        assertThat(edge.cache()).as("its cache, beside it").isEqualTo(target.resolve(copy.getFileName().toString().replace(".jar", ".aot")));
        assertThat(data.resolve("edge-1-2.jar")).doesNotExist();
        assertThat(target.resolve("slipway-edge-1-2.jar")).doesNotExist();
        assertThat(target.resolve("slipway-edge-1-2.aot")).doesNotExist();
        assertThat(EdgeJar.of(jar.toString(), data)).as("the same jar again").isEqualTo(edge);
        try (var files = Files.list(target)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("slipway.jar", copy.getFileName().toString());
        }
    }

    @Test
    void aTrainingRunsEdgeMakesTheCacheAndLaterEdgesStartFromIt() throws IOException {
        EdgeJar edge = EdgeJar.of(jar(Files.createDirectories(dir.resolve("target"))).toString(), Files.createDirectories(dir.resolve("data")));
        if (Runtime.version().feature() < 25) {
            assertThat(edge.cacheFlags(true)).as("no AOT cache before JDK 25").isEmpty();
            return;
        }
        assertThat(edge.cacheFlags(false)).as("no cache yet, and not a training run").isEmpty();
        assertThat(edge.cacheFlags(true)).contains("-XX:AOTCacheOutput=" + edge.trainingOutput(), "-Xlog:aot*=off");
        assertThat(edge.trains(true)).isTrue();
        assertThat(edge.trains(false)).isFalse();

        Files.writeString(edge.trainingOutput(), "the cache, as the JVM wrote it at the edge's exit");
        Files.writeString(Path.of(edge.trainingOutput() + ".config"), "the JVM's intermediate file");
        edge.keepTrained(true);
        assertThat(edge.cache()).hasContent("the cache, as the JVM wrote it at the edge's exit");
        assertThat(edge.trainingOutput()).doesNotExist();
        assertThat(Path.of(edge.trainingOutput() + ".config")).doesNotExist();
        assertThat(edge.cacheFlags(false)).contains("-XX:AOTCache=" + edge.cache(), "-Xlog:aot*=off", "-Xlog:cds*=off")
                .noneMatch(f -> f.startsWith("-XX:AOTCacheOutput"));
        assertThat(edge.trains(true)).as("a cache there is not made again").isFalse();
    }

    @Test
    void aTrainingEdgeKilledBeforeItsCacheWasWholeLeavesNone() throws IOException {
        EdgeJar edge = EdgeJar.of(jar(Files.createDirectories(dir.resolve("target"))).toString(), Files.createDirectories(dir.resolve("data")));
        Files.writeString(edge.trainingOutput(), "half a cache");
        edge.keepTrained(false);
        assertThat(edge.trainingOutput()).doesNotExist();
        assertThat(edge.cache()).doesNotExist();
    }

    @Test
    void aClassPathOfSeveralJarsIsKeptAsItIsWithItsCacheBesideSlipwaysJarWhenThatIsFirst() throws IOException {
        Path slipway = jar(Files.createDirectories(dir.resolve("build")), "dev/slipway/Main.class");
        Path library = jar(Files.createDirectories(dir.resolve("repository")), "org/example/Library.class");
        String cp = slipway + File.pathSeparator + library;
        EdgeJar edge = EdgeJar.of(cp, dir);
        assertThat(edge.classPath()).isEqualTo(cp);
        assertThat(edge.cache()).isEqualTo(slipway.resolveSibling("slipway-edge.aot"));
        try (var files = Files.list(slipway.getParent())) {
            assertThat(files).as("nothing copied").containsExactly(slipway);
        }
        assertThat(EdgeJar.of(library + File.pathSeparator + slipway, dir).cache())
                .as("no cache beside another jar, such as a library's in a repository").isNull();
    }

    /**
     * A jar in a folder the server may not write (an install's read-only tree): the copy goes into the data dir, with no
     * cache. The folder is made immutable ({@code chattr +i}), which stops root too, as a file mode would not.
     */
    @Test
    void aJarInAFolderThatCannotBeWrittenIsCopiedIntoTheDataDirWithoutACache() throws Exception {
        Path target = Files.createDirectories(dir.resolve("target"));
        Path jar = jar(target, "dev/slipway/Main.class");
        Path data = Files.createDirectories(dir.resolve("data"));
        Files.writeString(data.resolve("edge-1-2.jar"), "an earlier build's copy in the data dir");
        chattr("+i", target);
        try {
            assertThat(Files.isWritable(target)).as("the folder is not writable, even by root").isFalse();

            EdgeJar edge = EdgeJar.of(jar.toString(), data);

            String[] parts = edge.classPath().split(File.pathSeparator);
            Path copy = Path.of(parts[0]);
            assertThat(copy.getParent()).as("the copy, in the data dir").isEqualTo(data);
            assertThat(copy.getFileName().toString()).matches("edge-\\d+-\\d+\\.jar");
            assertThat(Files.mismatch(copy, jar)).isEqualTo(-1);
            assertThat(parts[1]).as("its libraries still named beside the jar").isEqualTo(target.resolve("lib/picocli-4.7.7.jar").toString());
            assertThat(edge.cache()).as("no cache").isNull();
            assertThat(edge.cacheFlags(true)).isEmpty();
            assertThat(edge.trains(true)).isFalse();
            assertThat(data.resolve("edge-1-2.jar")).as("the earlier copy removed").doesNotExist();
            try (var files = Files.list(target)) {
                assertThat(files.map(p -> p.getFileName().toString())).as("nothing written beside the jar").containsExactly("slipway.jar");
            }
            assertThat(EdgeJar.of(jar.toString(), data)).as("the same jar again").isEqualTo(edge);
            assertThat(EdgeJar.of(jar + File.pathSeparator + dir.resolve("lib.jar"), data).cache())
                    .as("a class path of several entries: no cache beside a jar whose folder cannot be written").isNull();
        } finally {
            chattr("-i", target);
        }
    }

    private static void chattr(String flag, Path folder) throws Exception {
        Process p = new ProcessBuilder("chattr", flag, folder.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).as("chattr %s (e2fsprogs; the build folder on ext4, as root): %s", flag, out).isZero();
    }

    @Test
    void aClassPathOfDirectoriesIsKeptAsItIs() throws IOException {
        String cp = "target/classes" + File.pathSeparator + "lib/a.jar";
        EdgeJar edge = EdgeJar.of(cp, dir);
        assertThat(edge.classPath()).isEqualTo(cp);
        assertThat(edge.cache()).isNull();
        assertThat(edge.cacheFlags(true)).isEmpty();
    }

    /**
     * Two builds' jars in one folder: a server of the second leaves the first's copy in place while a server of the first
     * runs (its edge may still have to start from it), and removes it once that server is gone.
     */
    @Test
    void anotherBuildsCopyIsKeptWhileAServerOfThatBuildRuns() throws Exception {
        Path target = Files.createDirectories(dir.resolve("target"));
        Path data = Files.createDirectories(dir.resolve("data"));
        Path first = jar(target);
        Path holder = dir.resolve("Holder.java");
        Files.writeString(holder, """
                import java.nio.file.Path;

                public class Holder {
                    public static void main(String[] args) throws Exception {
                        var of = Class.forName("dev.slipway.edge.EdgeJar").getDeclaredMethod("of", String.class, Path.class);
                        of.setAccessible(true);
                        of.invoke(null, args[0], Path.of(args[1]));
                        System.out.println("copied");
                        System.in.read();
                    }
                }
                """);
        Process server = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), holder.toString(), first.toString(), data.toString())
                .redirectErrorStream(true).start();
        Path firstCopy;
        Path second;
        try {
            var out = new java.io.BufferedReader(new java.io.InputStreamReader(server.getInputStream()));
            String line;
            StringBuilder seen = new StringBuilder();
            while ((line = out.readLine()) != null && !line.equals("copied")) seen.append(line).append('\n');
            assertThat(line).as("the first build's server made its copy: " + seen).isEqualTo("copied");
            try (var files = Files.list(target)) {
                firstCopy = files.filter(p -> p.getFileName().toString().matches("slipway-edge-\\d+-\\d+\\.jar")).findFirst().orElseThrow();
            }
            second = jar(target, "dev/slipway/Second.class");
            Path secondCopy = Path.of(EdgeJar.of(second.toString(), data).classPath().split(File.pathSeparator)[0]);
            assertThat(secondCopy).exists().isNotEqualTo(firstCopy);
            assertThat(firstCopy).as("the first build's copy while its server runs").exists();
        } finally {
            server.getOutputStream().close();
            if (!server.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)) server.destroyForcibly();
        }
        EdgeJar.of(second.toString(), data);
        assertThat(firstCopy).as("the first build's copy once its server is gone").doesNotExist();
    }

    private static Path jar(Path target, String... entries) throws IOException {
        Path jar = target.resolve("slipway.jar");
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.CLASS_PATH, "lib/picocli-4.7.7.jar lib/jetty-server-12.1.12.jar");
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out, manifest)) {
            for (String entry : entries) {
                j.putNextEntry(new JarEntry(entry));
                j.closeEntry();
            }
        }
        return jar;
    }
}
