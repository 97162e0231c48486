package dev.slipway.source;

import dev.slipway.testing.Zips;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.TreeMap;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

class ZipExtractorTest {
    private static final ZipExtractor DEFAULTS = new ZipExtractor(ZipExtractor.Limits.DEFAULTS);

    @TempDir
    Path temp;
    Path workspace;
    Path canary;

    @BeforeEach
    void dirs() throws IOException {
        workspace = temp.resolve("ws");
        canary = Files.createDirectories(temp.resolve("canary"));
    }

    private Path zip(byte[] bytes) throws IOException {
        return Files.write(temp.resolve("upload-" + UUID.randomUUID() + ".zip"), bytes);
    }

    private static Map<String, String> tree(Path root) throws IOException {
        Map<String, String> files = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.filter(Files::isRegularFile).toList()) {
                files.put(root.relativize(p).toString(), Files.readString(p));
            }
        }
        return files;
    }

    /** Refused with a clear message; nothing left in the workspace, nothing written beside it. */
    private SourceException refused(ZipExtractor extractor, byte[] bytes, String message) throws IOException {
        Path zip = zip(bytes);
        SourceException e = catchThrowableOfType(SourceException.class, () -> extractor.extract(zip, workspace));
        assertThat(e).as("refused: " + message).isNotNull();
        assertThat(e.getMessage()).contains(message);
        assertThat(e.isUserError()).isTrue();
        assertThat(workspace).doesNotExist();
        try (Stream<Path> beside = Files.list(canary)) {
            assertThat(beside).isEmpty();
        }
        try (Stream<Path> top = Files.list(temp)) {
            assertThat(top.map(p -> p.getFileName().toString())).allMatch(n -> n.equals("canary") || n.startsWith("upload-"));
        }
        return e;
    }

    @Test
    void extractsANestedZip() throws IOException {
        Map<String, String> files = new LinkedHashMap<>();
        files.put("package.json", "{\"name\":\"web\"}");
        files.put("src/", "");
        files.put("src/index.js", "console.log('hi')");
        files.put("src/lib/util.js", "module.exports = 1");
        files.put("public/empty/", "");

        assertThat(DEFAULTS.extract(zip(Zips.of(files)), workspace)).isEqualTo(workspace.toAbsolutePath());

        assertThat(tree(workspace)).containsExactly(Map.entry("package.json", "{\"name\":\"web\"}"),
                Map.entry("src/index.js", "console.log('hi')"), Map.entry("src/lib/util.js", "module.exports = 1"));
        assertThat(workspace.resolve("public/empty")).isDirectory();
    }

    @Test
    void unwrapsASingleTopLevelFolder() throws IOException {
        Map<String, String> files = new LinkedHashMap<>();
        files.put("my-app/", "");
        files.put("my-app/package.json", "{}");
        files.put("my-app/src/index.js", "x");
        files.put("__MACOSX/my-app/._package.json", "mac metadata");

        DEFAULTS.extract(zip(Zips.of(files)), workspace);

        assertThat(tree(workspace)).containsExactly(Map.entry("package.json", "{}"), Map.entry("src/index.js", "x"));
        assertThat(workspace.resolve("my-app")).doesNotExist();
        assertThat(workspace.resolve("__MACOSX")).doesNotExist();
    }

    @Test
    void keepsTheTopFolderWhenSomethingSitsBesideIt() throws IOException {
        Map<String, String> files = new LinkedHashMap<>();
        files.put("app/index.js", "x");
        files.put("README.md", "readme");
        DEFAULTS.extract(zip(Zips.of(files)), workspace);
        assertThat(tree(workspace)).containsOnlyKeys("app/index.js", "README.md");

        Path single = temp.resolve("single");
        DEFAULTS.extract(zip(Zips.of(Map.of("index.js", "only"))), single);
        assertThat(tree(single)).containsExactly(Map.entry("index.js", "only"));
    }

    @Test
    void preservesTheExecutableBit() throws IOException {
        byte[] bytes = new Zips.Builder()
                .unix("bin/start.sh", 0100755, "#!/bin/sh\n")
                .unix("bin/data.txt", 0100644, "data")
                .file("plain.txt", "no mode")
                .build();
        DEFAULTS.extract(zip(bytes), workspace);
        assertThat(Files.isExecutable(workspace.resolve("bin/start.sh"))).isTrue();
        assertThat(Files.isExecutable(workspace.resolve("bin/data.txt"))).isFalse();
        assertThat(Files.isExecutable(workspace.resolve("plain.txt"))).isFalse();
        assertThat(Files.readString(workspace.resolve("bin/start.sh"))).isEqualTo("#!/bin/sh\n");
    }

    /** Archives made by Info-ZIP ({@code zip -r -X}, and {@code -y} to store a link as a link). */
    @Test
    void readsWhatInfoZipWrites() throws IOException {
        Path made = Path.of("src/test/resources/zips/infozip-exec.zip");
        DEFAULTS.extract(made, workspace);
        assertThat(tree(workspace)).containsExactly(Map.entry("bin/run.sh", "#!/bin/sh\necho hi\n"),
                Map.entry("src/index.js", "console.log(1)\n"));
        assertThat(Files.isExecutable(workspace.resolve("bin/run.sh"))).isTrue();
        assertThat(Files.isExecutable(workspace.resolve("src/index.js"))).isFalse();
        Workspaces.delete(workspace);

        refused(DEFAULTS, Files.readAllBytes(Path.of("src/test/resources/zips/infozip-symlink.zip")),
                "symbolic link, which is not allowed: proj/bin/link.js");
    }

    @Test
    void refusesAbsolutePaths() throws IOException {
        String outside = temp.resolve("canary/absolute.txt").toAbsolutePath().toString();
        refused(DEFAULTS, new Zips.Builder().file("ok.txt", "x").file(outside, "pwned").build(), "absolute path");
        refused(DEFAULTS, new Zips.Builder().file("C:/Windows/evil.txt", "pwned").build(), "absolute path");
        refused(DEFAULTS, new Zips.Builder().file("\\canary\\evil.txt", "pwned").build(), "absolute path");
        assertThat(Path.of(outside)).doesNotExist();
    }

    @Test
    void refusesTraversal() throws IOException {
        for (String name : new String[]{"../canary/evil.txt", "app/../../canary/evil.txt", "..\\canary\\evil.txt", "..", "a/.."}) {
            var e = refused(DEFAULTS, new Zips.Builder().file("fine.txt", "x").file(name, "pwned").build(), "leaves its folder");
            assertThat(e.reason()).isEqualTo(SourceException.Reason.UNSAFE_ZIP);
        }
    }

    @Test
    void refusesLinksAndSpecialFiles() throws IOException {
        refused(DEFAULTS, new Zips.Builder().file("index.js", "x").unix("link", 0120777, "../canary").build(), "symbolic link");
        refused(DEFAULTS, new Zips.Builder().unix("app/etc", 0120777, "/etc/passwd").file("app/x", "x").build(), "symbolic link");
        refused(DEFAULTS, new Zips.Builder().unix("fifo", 0010644, "").build(), "special file");
    }

    @Test
    void refusesTooManyEntries() throws IOException {
        Zips.Builder atLimit = new Zips.Builder();
        for (int i = 0; i < 10_000; i++) atLimit.file("f" + i, new byte[0], false);
        assertThat(DEFAULTS.inspect(zip(atLimit.build())).files()).isEqualTo(10_000);

        Zips.Builder over = new Zips.Builder();
        for (int i = 0; i <= 10_000; i++) over.file("f" + i, new byte[0], false);
        refused(DEFAULTS, over.build(), "more than 10000 entries");
    }

    /** Over 65,535 entries java.util.zip writes a zip64 end record; the count is read from it, before any entry. */
    @Test
    void readsTheEntryCountOfAZip64Archive() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (var out = new ZipOutputStream(bytes)) {
            out.setLevel(0);
            for (int i = 0; i < 70_000; i++) {
                out.putNextEntry(new ZipEntry("f" + i));
                out.closeEntry();
            }
        }
        refused(DEFAULTS, bytes.toByteArray(), "more than 10000 entries");
        ZipExtractor roomy = new ZipExtractor(new ZipExtractor.Limits(100_000, 1024, 100));
        assertThat(roomy.inspect(zip(bytes.toByteArray())).files()).isEqualTo(70_000);
    }

    @Test
    void refusesTooManyBytesUnpacked() throws IOException {
        ZipExtractor small = new ZipExtractor(new ZipExtractor.Limits(100, 1024 * 1024, 100));
        byte[] random = new byte[1024 * 1024 + 1];
        new Random(7).nextBytes(random);
        refused(small, new Zips.Builder().file("big.bin", random, false).build(), "unpacks to more than 1 MiB");
        // headers that understate the size do not help: bytes are counted as they are written
        refused(small, new Zips.Builder().file("a.txt", "first").lying("big.bin", random, false, 10).build(),
                "unpacks to more than 1 MiB");
        refused(small, new Zips.Builder().lying("big.bin", random, true, 10).build(), "unpacks to more than 1 MiB");
        // exactly at the limit is fine
        small.extract(zip(new Zips.Builder().file("ok.bin", Arrays.copyOf(random, 1024 * 1024), false).build()), workspace);
        assertThat(Files.size(workspace.resolve("ok.bin"))).isEqualTo(1024 * 1024);
    }

    @Test
    void refusesACompressionRatioOver100To1() throws IOException {
        byte[] zeros = new byte[4 * 1024 * 1024];
        refused(DEFAULTS, new Zips.Builder().file("bomb.bin", zeros, true).build(), "compression ratio is over 100:1");
        refused(DEFAULTS, new Zips.Builder().lying("bomb.bin", zeros, true, 1).build(), "compression ratio is over 100:1");
    }

    @Test
    void refusesWhatIsNotAZip() throws IOException {
        refused(DEFAULTS, "just some text, certainly not a zip archive".getBytes(), "not a zip archive");
        refused(DEFAULTS, new byte[0], "not a zip archive");
        refused(DEFAULTS, new Zips.Builder().build(), "The zip is empty");
        refused(DEFAULTS, Zips.of(Map.of("only/", "")), "no files");
        byte[] truncated = Zips.of(Map.of("a.txt", "x".repeat(1000)));
        refused(DEFAULTS, Arrays.copyOf(truncated, truncated.length / 2), "not a zip archive");
    }

    @Test
    void refusesCorruptData() throws IOException {
        byte[] bytes = new Zips.Builder().file("a.txt", "hello hello hello hello").build();
        bytes[40] ^= 0x55; // inside the deflated data of the first entry
        var e = refused(DEFAULTS, bytes, "corrupt");
        assertThat(e.reason()).isEqualTo(SourceException.Reason.INVALID_INPUT);
    }

    @Test
    void refusesDuplicatesConflictsAndEncryption() throws IOException {
        refused(DEFAULTS, new Zips.Builder().file("a.txt", "1").file("a.txt", "2").build(), "a file named a.txt twice");
        refused(DEFAULTS, new Zips.Builder().file("a", "file").file("a/b", "x").build(), "a file and a folder");
        refused(DEFAULTS, new Zips.Builder().file("a/b", "x").file("a", "file").build(), "a file and a folder");
        refused(DEFAULTS, new Zips.Builder().encrypted("secret.txt", "x").build(), "encrypted");
    }
}
