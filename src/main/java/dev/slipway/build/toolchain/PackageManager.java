package dev.slipway.build.toolchain;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.build.BuildException;
import dev.slipway.build.PackageJson;

import dev.slipway.core.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The package manager a Node app uses, from its lockfile: {@code package-lock.json}/{@code npm-shrinkwrap.json}
 * → npm, {@code pnpm-lock.yaml} → pnpm, {@code yarn.lock} → yarn (classic, or berry when the lockfile has
 * {@code __metadata}), {@code bun.lockb}/{@code bun.lock} → bun. Without a lockfile, package.json's
 * {@code packageManager} names it, else npm. Install, build and start all run with it.
 */
public record PackageManager(Kind kind, boolean locked, Path program) {
    public enum Kind {
        NPM("npm", null), PNPM("pnpm", "pnpm"), YARN_CLASSIC("yarn", "yarn"), YARN_BERRY("yarn", "@yarnpkg/cli-dist"),
        BUN("bun", bunPackage());

        final String command;
        /** The npm package it comes from; null: the machine's own. */
        final String registryPackage;

        Kind(String command, String registryPackage) {
            this.command = command;
            this.registryPackage = registryPackage;
        }

        public String command() {
            return command;
        }

        /** bun's own build for this machine, which bun publishes to the npm registry (a binary in {@code bin/bun}). */
        private static String bunPackage() {
            return "@oven/bun-linux-" + (System.getProperty("os.arch").equals("aarch64") ? "aarch64" : "x64");
        }

        public String label() {
            return switch (this) {
                case YARN_CLASSIC -> "yarn classic";
                case YARN_BERRY -> "yarn berry";
                default -> command;
            };
        }
    }

    /**
     * What an app asks for: a kind and the versions of it that do.
     *
     * @param range  null for npm (the machine's)
     * @param hash   corepack's {@code +sha512.<hex>} suffix of packageManager, checked against the download
     * @param reason for the build log
     */
    record Request(Kind kind, boolean locked, String range, String hash, String reason) {}

    private static final List<String> NPM_FLAGS = List.of("--no-audit", "--no-fund", "--prefer-offline", "--include=dev");
    private static final Pattern FIELD = Pattern.compile("(pnpm|yarn|npm|bun)@([^+\\s]+)(?:\\+((?:sha1|sha224|sha256|sha384|sha512)\\.[0-9a-fA-F]+))?");
    private static final Pattern PNPM_LOCK = Pattern.compile("(?m)^lockfileVersion:\\s*['\"]?(\\d+)(?:\\.(\\d+))?");
    private static final List<String> BUN_PLACES = List.of("/usr/local/bin/bun", "/usr/bin/bun");
    /** Without packageManager, a bun lockfile installs with the newest bun of this major (it reads both lockfile formats). */
    static final String BUN_MAJOR = "1";

    /** What the app in {@code dir} asks for; a {@link BuildException} when packageManager is malformed. */
    static Request requested(Path dir) {
        Optional<String[]> field = field(dir);
        String fieldText = field.map(f -> "packageManager " + f[0] + "@" + f[1] + " in package.json").orElse(null);
        if (exists(dir, "package-lock.json") || exists(dir, "npm-shrinkwrap.json")) {
            return new Request(Kind.NPM, true, null, null, (exists(dir, "package-lock.json") ? "package-lock.json" : "npm-shrinkwrap.json"));
        }
        if (exists(dir, "pnpm-lock.yaml")) {
            if (field.isPresent() && field.get()[0].equals("pnpm")) {
                return new Request(Kind.PNPM, true, field.get()[1], field.get()[2], "pnpm-lock.yaml, " + fieldText);
            }
            String major = pnpmMajor(dir.resolve("pnpm-lock.yaml"));
            return new Request(Kind.PNPM, true, major, null, "pnpm-lock.yaml (lockfileVersion " + lockVersion(dir.resolve("pnpm-lock.yaml")) + ")");
        }
        if (exists(dir, "yarn.lock")) {
            if (field.isPresent() && field.get()[0].equals("yarn")) {
                return new Request(yarnKind(field.get()[1]), true, field.get()[1], field.get()[2], "yarn.lock, " + fieldText);
            }
            Optional<Integer> metadata = berryLockVersion(dir.resolve("yarn.lock"));
            if (metadata.isEmpty()) return new Request(Kind.YARN_CLASSIC, true, "1", null, "yarn.lock (no __metadata)");
            String major = metadata.get() >= 7 ? "4" : metadata.get() >= 5 ? "3" : "2";
            return new Request(Kind.YARN_BERRY, true, major, null, "yarn.lock (__metadata version " + metadata.get() + ")");
        }
        for (String bun : List.of("bun.lockb", "bun.lock")) {
            if (!exists(dir, bun)) continue;
            if (field.isPresent() && field.get()[0].equals("bun")) return new Request(Kind.BUN, true, field.get()[1], field.get()[2], bun + ", " + fieldText);
            return new Request(Kind.BUN, true, BUN_MAJOR, null, bun);
        }
        if (field.isPresent()) {
            String[] f = field.get();
            Kind kind = switch (f[0]) {
                case "pnpm" -> Kind.PNPM;
                case "yarn" -> yarnKind(f[1]);
                case "bun" -> Kind.BUN;
                default -> Kind.NPM;
            };
            return new Request(kind, false, kind.registryPackage == null ? null : f[1], f[2], fieldText + ", no lockfile");
        }
        return new Request(Kind.NPM, false, null, null, "no lockfile");
    }

    /**
     * The machine's bun, for when bun's build cannot be had from the registry ({@code fromRegistry} says why);
     * else a failure that says what to do.
     */
    static Path bun(String fromRegistry) {
        return BUN_PLACES.stream().map(Path::of).filter(Files::isExecutable).findFirst().orElseThrow(() -> new BuildException(
                "the app uses bun (it has a bun lockfile or packageManager bun@…) and bun is not available on this build "
                        + "server: " + fromRegistry + ", and there is no /usr/local/bin/bun or /usr/bin/bun; ask the operator "
                        + "to install bun there, or commit a package-lock.json, pnpm-lock.yaml or yarn.lock instead"));
    }

    public List<String> install() {
        List<String> argv = new ArrayList<>(List.of(command()));
        switch (kind) {
            case NPM -> {
                argv.add(locked ? "ci" : "install");
                argv.addAll(NPM_FLAGS);
            }
            // NODE_ENV=production would leave devDependencies out, and builds need them
            case PNPM -> argv.addAll(locked ? List.of("install", "--frozen-lockfile", "--prod=false") : List.of("install", "--prod=false"));
            case YARN_CLASSIC -> {
                argv.add("install");
                if (locked) argv.add("--frozen-lockfile");
                argv.addAll(List.of("--production=false", "--non-interactive", "--no-progress"));
            }
            case YARN_BERRY -> argv.addAll(locked ? List.of("install", "--immutable") : List.of("install"));
            case BUN -> argv.addAll(locked ? List.of("install", "--frozen-lockfile") : List.of("install"));
        }
        return List.copyOf(argv);
    }

    public List<String> run(String script) {
        return List.of(command(), "run", script);
    }

    /** How the start script runs when it cannot be started directly. */
    public List<String> start() {
        return List.of(command(), "start");
    }

    public String command() {
        return program != null ? program.toString() : kind.command;
    }

    private static Kind yarnKind(String version) {
        return version.matches("v?1(\\..*)?") ? Kind.YARN_CLASSIC : Kind.YARN_BERRY;
    }

    private static boolean exists(Path dir, String name) {
        return Files.isRegularFile(dir.resolve(name));
    }

    /** [tool, version, hash or null] from package.json's packageManager. */
    private static Optional<String[]> field(Path dir) {
        JsonNode node;
        try {
            node = Json.MAPPER.readTree(dir.resolve(PackageJson.FILE).toFile()).path("packageManager");
        } catch (IOException e) {
            return Optional.empty();
        }
        if (node.isMissingNode() || node.isNull()) return Optional.empty();
        Matcher m = FIELD.matcher(node.asText().strip());
        if (!m.matches()) {
            throw new BuildException("package.json's packageManager \"" + node.asText() + "\" is not of the form "
                    + "pnpm@9.1.0, yarn@1.22.22, npm@10.8.2 or bun@1.1.0");
        }
        return Optional.of(new String[]{m.group(1), m.group(2), m.group(3)});
    }

    private static String lockVersion(Path lock) {
        Matcher m = PNPM_LOCK.matcher(head(lock));
        return m.find() ? m.group(1) + (m.group(2) == null ? "" : "." + m.group(2)) : "?";
    }

    /** pnpm-lock's lockfileVersion → the pnpm major that writes it (5.3: 6, 5.4: 7, 6.x: 8, 9.x: 9). */
    private static String pnpmMajor(Path lock) {
        Matcher m = PNPM_LOCK.matcher(head(lock));
        if (!m.find()) throw new BuildException("pnpm-lock.yaml has no lockfileVersion; add packageManager to package.json");
        int major = Integer.parseInt(m.group(1));
        int minor = m.group(2) == null ? 0 : Integer.parseInt(m.group(2));
        if (major == 5) return minor >= 4 ? "7" : "6";
        if (major == 6) return "8";
        if (major == 9) return "9";
        throw new BuildException("pnpm-lock.yaml has lockfileVersion " + m.group(1) + (m.group(2) == null ? "" : "." + m.group(2))
                + ", which no pnpm Slipway knows writes; add packageManager (such as pnpm@9.15.0) to package.json");
    }

    /** The {@code __metadata: version:} of a berry lockfile; empty for yarn classic's. */
    private static Optional<Integer> berryLockVersion(Path lock) {
        String head = head(lock);
        int at = head.indexOf("\n__metadata:");
        if (at < 0 && !head.startsWith("__metadata:")) return Optional.empty();
        Matcher m = Pattern.compile("(?m)^\\s+version:\\s*(\\d+)").matcher(head.substring(Math.max(0, at)));
        return Optional.of(m.find() ? Integer.parseInt(m.group(1)) : 4);
    }

    private static String head(Path file) {
        try (var in = Files.newInputStream(file)) {
            return new String(in.readNBytes(4096), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new BuildException(file.getFileName() + " cannot be read: " + e.getMessage());
        }
    }
}
