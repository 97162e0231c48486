package dev.slipway.build.detect;

import dev.slipway.build.BuildException;
import dev.slipway.build.Framework;
import dev.slipway.build.PackageJson;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Decides which kind of app a source tree is (docs/deploying.md "Frameworks", and its starters table). Node kinds are checked first, most
 * specific first: a Next.js app also depends on react, a Vite app may also depend on express. What names no
 * known framework falls to the generic kinds: a Node server, a Python web app, a static site.
 */
public final class FrameworkDetector {
    public static final String DOCKERFILE = "Dockerfile";
    public static final String REQUIREMENTS = "requirements.txt";
    public static final String PYPROJECT = "pyproject.toml";
    static final String DJANGO_MANAGE = "manage.py";
    static final List<String> NEXT_CONFIGS = List.of("next.config.js", "next.config.mjs", "next.config.ts", "next.config.cjs");

    /** poetry's {@code fastapi = "^0.110"} or a PEP 621 dependency string {@code "fastapi[all]>=0.100"}. */
    private static final Pattern PYPROJECT_FASTAPI = Pattern.compile(
            "(?im)^\\s*fastapi\\s*=|[\"']\\s*fastapi\\s*(?:[\\[<>=!~;,\\s\"']|$)");
    private static final Pattern NEXT_EXPORT = Pattern.compile("output\\s*:\\s*['\"`]export['\"`]");

    /** @param stack the meta-framework package.json declares ({@link Stack#NONE}: none), whatever the framework */
    public record Detection(Framework framework, String reason, Stack stack) {
        public Detection(Framework framework, String reason) {
            this(framework, reason, Stack.NONE);
        }

        Detection with(Stack s) {
            return new Detection(framework, reason, s);
        }
    }

    /** Files of languages built only from a Dockerfile, and what they are. */
    private static final List<String[]> OTHER_LANGUAGES = List.of(new String[]{"go.mod", "a Go module"},
            new String[]{"pom.xml", "a Maven project"}, new String[]{"build.gradle", "a Gradle project"},
            new String[]{"build.gradle.kts", "a Gradle project"}, new String[]{"Cargo.toml", "a Rust crate"},
            new String[]{"Gemfile", "a Ruby app"}, new String[]{"composer.json", "a PHP app"},
            new String[]{"mix.exs", "an Elixir app"}, new String[]{"deno.json", "a Deno app"});

    /**
     * @param explicit the project's framework setting, or null to detect; an explicit one wins
     * @throws BuildException when nothing is detected, the explicit name is unknown or package.json is malformed
     */
    public Detection detect(Path sourceDir, String explicit) {
        if (explicit != null && !explicit.isBlank()) {
            Framework f = Framework.fromId(explicit.strip()).orElseThrow(() -> new BuildException(
                    "unknown framework \"" + explicit + "\"; expected one of " + known()));
            return new Detection(f, "set on the project", Stack.of(PackageJson.read(sourceDir)));
        }
        // a Dockerfile says how the app is built: it wins over what the files look like, unless a native kind is set
        if (Files.isRegularFile(sourceDir.resolve(DOCKERFILE))) {
            return new Detection(Framework.DOCKER, "a Dockerfile (set a native framework to build without it)");
        }
        Optional<PackageJson> pkg = PackageJson.read(sourceDir);
        Stack stack = Stack.of(pkg);
        return detected(sourceDir, pkg, stack).with(stack);
    }

    private Detection detected(Path sourceDir, Optional<PackageJson> pkg, Stack stack) {
        if (pkg.isPresent()) {
            PackageJson p = pkg.get();
            Optional<Detection> byStack = stack.detect(sourceDir, p);
            if (byStack.isPresent()) return byStack.get();
            if (p.dependsOn("next")) {
                return nextExport(sourceDir)
                        ? new Detection(Framework.STATIC, "package.json depends on next and its config sets output: 'export'")
                        : new Detection(Framework.NEXTJS, "package.json depends on next");
            }
            if (p.dependsOn("vite") && p.dependsOn("react"))
                return new Detection(Framework.REACT_VITE, "package.json depends on vite and react");
            if (p.dependsOn("express")) return new Detection(Framework.NODE_EXPRESS, "package.json depends on express");
            if (p.dependsOn("vite")) return new Detection(Framework.STATIC, "package.json depends on vite (a static build)");
            Optional<String> server = nodeServer(sourceDir, p);
            if (server.isPresent()) return new Detection(Framework.NODE, server.get());
        }
        if (requirementsName(sourceDir.resolve(REQUIREMENTS), "fastapi"))
            return new Detection(Framework.PYTHON_FASTAPI, "requirements.txt lists fastapi");
        if (pyprojectHasFastapi(sourceDir.resolve(PYPROJECT)))
            return new Detection(Framework.PYTHON_FASTAPI, "pyproject.toml lists fastapi");
        for (String file : List.of(REQUIREMENTS, PYPROJECT, DJANGO_MANAGE)) {
            if (Files.isRegularFile(sourceDir.resolve(file))) return new Detection(Framework.PYTHON, "a Python app (" + file + ")");
        }
        if (pkg.isPresent() && pkg.get().script("build").isPresent())
            return new Detection(Framework.STATIC, "package.json has a build script and no server (a static build)");
        if (Files.isRegularFile(sourceDir.resolve("index.html")))
            return new Detection(Framework.STATIC, "index.html at the root (a static site, nothing to build)");
        String found = OTHER_LANGUAGES.stream().filter(f -> Files.isRegularFile(sourceDir.resolve(f[0])))
                .map(f -> f[0] + " (" + f[1] + ")").collect(Collectors.joining(", "));
        throw new BuildException("could not detect the framework: "
                + (found.isEmpty() ? "" : "found " + found + ", which is built from a Dockerfile: add a Dockerfile to the app's "
                + "folder (or set dockerfile_path). ")
                + "Looked for a Dockerfile; package.json " + (pkg.isPresent() ? "(found)" : "(not found)")
                + " with a framework, a start script, a main or index.js; requirements.txt, pyproject.toml or manage.py "
                + "(Python); index.html (a static site); found none of them. Or set the framework to one of " + known());
    }

    static String known() {
        return Arrays.stream(Framework.values()).map(Framework::id).collect(Collectors.joining(", "));
    }

    /** Next's static export: {@code output: 'export'} in its config. */
    static boolean nextExport(Path dir) {
        for (String name : NEXT_CONFIGS) {
            Path config = dir.resolve(name);
            if (Files.isRegularFile(config) && NEXT_EXPORT.matcher(String.join("\n", readLines(config))).find()) return true;
        }
        return false;
    }

    /** Why a package.json is a Node server (Fastify, Koa, Hono, NestJS, plain http…): it has a way to start. */
    private static Optional<String> nodeServer(Path dir, PackageJson p) {
        if (p.script("start").isPresent()) return Optional.of("package.json has a start script");
        if (p.main() != null && !p.main().isBlank()) return Optional.of("package.json has a main");
        if (Files.isRegularFile(dir.resolve("index.js"))) return Optional.of("package.json and index.js");
        if (Files.isRegularFile(dir.resolve(Procfile.NAME))) return Optional.of("package.json and a Procfile");
        return Optional.empty();
    }

    /** True when a requirements file names the package (ignoring versions, extras, markers and case). */
    static boolean requirementsName(Path file, String name) {
        if (!Files.isRegularFile(file)) return false;
        for (String line : readLines(file)) {
            String l = line.replaceFirst("\\s+#.*$", "").replaceFirst("^#.*$", "").strip();
            if (l.isEmpty() || l.startsWith("-")) continue;
            var m = Pattern.compile("^([A-Za-z0-9][A-Za-z0-9._-]*)").matcher(l);
            if (m.find() && normalize(m.group(1)).equals(name)) return true;
        }
        return false;
    }

    private static boolean pyprojectHasFastapi(Path file) {
        if (!Files.isRegularFile(file)) return false;
        return PYPROJECT_FASTAPI.matcher(String.join("\n", readLines(file))).find();
    }

    private static String normalize(String name) {
        return name.toLowerCase(Locale.ROOT).replaceAll("[._-]+", "-");
    }

    static List<String> readLines(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            throw new BuildException("cannot read " + file.getFileName() + " (is it UTF-8 text?): " + e.getMessage(), e);
        }
    }
}
