package dev.slipway.build.cache;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.slipway.build.PackageJson;
import dev.slipway.build.toolchain.PackageManager;
import dev.slipway.build.toolchain.Toolchain;
import dev.slipway.core.Json;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The build cache's key for installed packages: a SHA-256 over the project and everything that changes what the
 * install writes into node_modules. Two builds with the same key would install the same tree, so the second one
 * may reuse the first one's. The project is part of it: what an install writes also depends on what no key can
 * list (variables of any name that install scripts read for their mirrors and binary hosts, config files of the
 * source such as a Prisma schema or a {@code .puppeteerrc}), so one project's install is never another's.
 */
final class CacheKey {
    /** Bumped when what the platform installs with changes in a way the parts below do not see. */
    private static final String FORMAT = "slipway-build-cache/2";
    private static final List<String> INSTALL_FILES = List.of("package-lock.json", "npm-shrinkwrap.json", "pnpm-lock.yaml",
            "yarn.lock", "bun.lockb", "bun.lock", ".npmrc", ".yarnrc", ".yarnrc.yml", "pnpm-workspace.yaml", ".pnpmfile.cjs");
    /** The package.json fields that change the installed tree (the rest, e.g. the build script, do not). */
    private static final List<String> INSTALL_FIELDS = List.of("name", "version", "dependencies", "devDependencies",
            "optionalDependencies", "peerDependencies", "peerDependenciesMeta", "bundleDependencies", "bundledDependencies",
            "overrides", "resolutions", "workspaces", "pnpm", "packageManager", "engines", "os", "cpu", "bin", "directories");
    /** The platform's own variables of a build (its deployment's marker): never the app's, and new at each build. */
    private static final String PLATFORM_PREFIX = "SLIPWAY_";

    private CacheKey() {}

    /**
     * @param projectId  whose install it is: entries are never shared between projects
     * @param workspace  the build's copy of the source
     * @param installDir where the install runs (the app's folder or its workspace root)
     * @param toolchain  the Node and package manager it runs with
     * @param path       the PATH of the install step, to find which node and package manager program it runs
     * @param appEnv     the app's own variables, every one of them (their values go in hashed); the platform's per-build
     *                  {@code SLIPWAY_*} markers are left out
     */
    static String of(String projectId, Path workspace, Path installDir, Toolchain toolchain, String path,
                     Map<String, String> appEnv) {
        MessageDigest sha = sha256();
        part(sha, FORMAT);
        part(sha, projectId);
        part(sha, System.getProperty("os.name") + "/" + System.getProperty("os.arch"));
        PackageManager pm = toolchain.packageManager();
        part(sha, pm.kind().name());
        part(sha, String.join(" ", pm.install()));
        part(sha, program(pm.command(), path));
        part(sha, program("node", path));
        toolchain.homes().forEach(h -> part(sha, h.toString()));
        part(sha, installDir.equals(workspace) ? "." : workspace.relativize(installDir).toString());
        for (String name : INSTALL_FILES) {
            Path file = installDir.resolve(name);
            part(sha, name);
            part(sha, Files.isRegularFile(file) ? digest(file) : "absent"); // a link stays inside the tree (Trees.copySource)
        }
        packageFiles(installDir).forEach((rel, file) -> {
            part(sha, rel);
            part(sha, installFields(file));
        });
        new TreeMap<>(appEnv).forEach((name, value) -> {
            if (value == null || name.startsWith(PLATFORM_PREFIX)) return;
            part(sha, name);
            part(sha, HexFormat.of().formatHex(sha256().digest(value.getBytes(StandardCharsets.UTF_8))));
        });
        return HexFormat.of().formatHex(sha.digest());
    }

    /**
     * Where a program the step runs by name (or by path) is, and its size and modification time: the
     * machine's Node or npm upgraded by the package manager of the system changes the key.
     */
    static String program(String command, String path) {
        List<Path> candidates = new ArrayList<>();
        if (command.contains("/")) candidates.add(Path.of(command));
        else for (String dir : path.split(":")) if (!dir.isBlank()) candidates.add(Path.of(dir, command));
        for (Path candidate : candidates) {
            if (!Files.isExecutable(candidate)) continue;
            try {
                Path real = candidate.toRealPath();
                StringBuilder id = new StringBuilder(real.toString()).append(' ').append(Files.size(real)).append(' ')
                        .append(Files.getLastModifiedTime(real).toMillis());
                // npm is a script: its package's version is in the package.json above it
                for (Path dir = real.getParent(); dir != null && dir.getNameCount() > real.getNameCount() - 4; dir = dir.getParent()) {
                    Path pkg = dir.resolve(PackageJson.FILE);
                    if (Files.isRegularFile(pkg)) {
                        id.append(' ').append(digest(pkg));
                        break;
                    }
                }
                return id.toString();
            } catch (IOException e) {
                return candidate + " unreadable";
            }
        }
        return command + " not found";
    }

    /**
     * The first install script ({@code preinstall}, {@code install}, {@code postinstall}, {@code prepare}) of
     * the app's own package.json files, as "path: name"; such a script may write outside node_modules, which
     * the cache does not keep, so an app that has one is not cached.
     */
    static Optional<String> ownInstallScript(Path installDir) {
        for (var e : packageFiles(installDir).entrySet()) {
            if (!e.getValue().getFileName().toString().equals(PackageJson.FILE)) continue;
            try {
                JsonNode scripts = Json.MAPPER.readTree(e.getValue().toFile()).path("scripts");
                for (String name : List.of("preinstall", "install", "postinstall", "prepare")) {
                    if (scripts.hasNonNull(name)) return Optional.of(e.getKey() + " " + name);
                }
            } catch (IOException | RuntimeException unreadable) {
                return Optional.of(e.getKey() + " (not valid JSON)");
            }
        }
        return Optional.empty();
    }

    /** Every package.json of the install's tree but those of installed packages, by relative path. */
    private static Map<String, Path> packageFiles(Path installDir) {
        Map<String, Path> found = new TreeMap<>();
        try {
            Files.walkFileTree(installDir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                    String name = dir.getFileName() == null ? "" : dir.getFileName().toString();
                    if (!dir.equals(installDir) && (name.equals("node_modules") || name.equals(".git"))) return FileVisitResult.SKIP_SUBTREE;
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                    if (attrs.isRegularFile() && (file.getFileName().toString().equals(PackageJson.FILE)
                            || installDir.relativize(file).startsWith("patches"))) {
                        found.put(installDir.relativize(file).toString(), file);
                    }
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + installDir, e);
        }
        return found;
    }

    private static String installFields(Path file) {
        if (!file.getFileName().toString().equals(PackageJson.FILE)) return digest(file);
        JsonNode root;
        try {
            root = Json.MAPPER.readTree(file.toFile());
        } catch (IOException e) {
            return digest(file);
        }
        if (root == null || !root.isObject()) return digest(file);
        ObjectNode kept = Json.MAPPER.createObjectNode();
        for (String field : INSTALL_FIELDS) if (root.has(field)) kept.set(field, root.get(field));
        JsonNode scripts = root.path("scripts");
        for (String script : PackageJson.INSTALL_SCRIPTS) if (scripts.has(script)) kept.set("scripts." + script, scripts.get(script));
        return kept.toString();
    }

    private static String digest(Path file) {
        MessageDigest sha = sha256();
        try (InputStream in = Files.newInputStream(file)) {
            byte[] buffer = new byte[65536];
            for (int n; (n = in.read(buffer)) > 0; ) sha.update(buffer, 0, n);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    private static void part(MessageDigest sha, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        sha.update(Integer.toString(bytes.length).getBytes(StandardCharsets.US_ASCII));
        sha.update((byte) ':');
        sha.update(bytes);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
