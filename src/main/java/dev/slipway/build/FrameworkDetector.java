package dev.slipway.build;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Decides which framework a source tree is (DESIGN §4). Node frameworks are checked first, most
 * specific first: a Next.js app also depends on react, a Vite app may also depend on express.
 */
public final class FrameworkDetector {
    static final String REQUIREMENTS = "requirements.txt";
    static final String PYPROJECT = "pyproject.toml";

    /** poetry's {@code fastapi = "^0.110"} or a PEP 621 dependency string {@code "fastapi[all]>=0.100"}. */
    private static final Pattern PYPROJECT_FASTAPI = Pattern.compile(
            "(?im)^\\s*fastapi\\s*=|[\"']\\s*fastapi\\s*(?:[\\[<>=!~;,\\s\"']|$)");

    public record Detection(Framework framework, String reason) {}

    /**
     * @param explicit the project's framework setting, or null to detect; an explicit one wins
     * @throws BuildException when nothing is detected, the explicit name is unknown or package.json is malformed
     */
    public Detection detect(Path sourceDir, String explicit) {
        if (explicit != null && !explicit.isBlank()) {
            Framework f = Framework.fromId(explicit.strip()).orElseThrow(() -> new BuildException(
                    "unknown framework \"" + explicit + "\"; expected one of " + known()));
            return new Detection(f, "set on the project");
        }
        Optional<PackageJson> pkg = PackageJson.read(sourceDir);
        if (pkg.isPresent()) {
            PackageJson p = pkg.get();
            if (p.dependsOn("next")) return new Detection(Framework.NEXTJS, "package.json depends on next");
            if (p.dependsOn("vite") && p.dependsOn("react"))
                return new Detection(Framework.REACT_VITE, "package.json depends on vite and react");
            if (p.dependsOn("express")) return new Detection(Framework.NODE_EXPRESS, "package.json depends on express");
        }
        if (requirementsName(sourceDir.resolve(REQUIREMENTS), "fastapi"))
            return new Detection(Framework.PYTHON_FASTAPI, "requirements.txt lists fastapi");
        if (pyprojectHasFastapi(sourceDir.resolve(PYPROJECT)))
            return new Detection(Framework.PYTHON_FASTAPI, "pyproject.toml lists fastapi");
        throw new BuildException("could not detect the framework: looked for package.json "
                + (pkg.isPresent() ? "(found)" : "(not found)")
                + " depending on next (nextjs), vite and react (react-vite) or express (node-express), and for "
                + "fastapi in requirements.txt or pyproject.toml (python-fastapi); found none. "
                + "Set the framework explicitly to one of " + known());
    }

    static String known() {
        return Arrays.stream(Framework.values()).map(Framework::id).collect(Collectors.joining(", "));
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

    private static java.util.List<String> readLines(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            throw new BuildException("cannot read " + file.getFileName() + " (is it UTF-8 text?): " + e.getMessage(), e);
        }
    }
}
