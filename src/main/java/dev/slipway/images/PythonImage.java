package dev.slipway.images;

import dev.slipway.build.Artifact;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How a Python build runs in its image. The build's venv holds every package the app needs (the build copies
 * those it took from the machine into it), but its {@code bin/python} is a link to the machine's interpreter and is
 * left out of the layer: the image runs the base image's {@code python3} of the same version, with the venv's
 * site-packages on {@code PYTHONPATH}, and the app listens on every address of the pod, not on loopback.
 */
final class PythonImage {
    static final String INTERPRETER = "python3";
    /** When the build's venv does not say (it always does for builds made by this version). */
    static final String DEFAULT_VERSION = "3.11";
    private static final Pattern VERSION = Pattern.compile("(?m)^\\s*version(?:_info)?\\s*=\\s*(\\d+)\\.(\\d+)");
    private static final String VENV = ".venv";

    private PythonImage() {}

    static boolean applies(Artifact a) {
        return a.framework().startsWith("python");
    }

    /** {@code major.minor} of the interpreter the venv was made with, read from its {@code pyvenv.cfg}. */
    static String version(Artifact a) {
        for (Path venv : venvs(a)) {
            Path cfg = venv.resolve("pyvenv.cfg");
            try {
                if (!Files.isRegularFile(cfg, LinkOption.NOFOLLOW_LINKS) || Files.size(cfg) > 64 * 1024) continue;
                Matcher m = VERSION.matcher(Files.readString(cfg));
                if (m.find()) return m.group(1) + "." + m.group(2);
            } catch (IOException | RuntimeException e) {
                // an unreadable cfg: fall through to the default
            }
        }
        return DEFAULT_VERSION;
    }

    /** The venv's site-packages as the image sees it, e.g. {@code /app/.venv/lib/python3.11/site-packages}. */
    static Optional<String> sitePackages(Artifact a) {
        Path root = a.root().toAbsolutePath().normalize();
        for (Path venv : venvs(a)) {
            Path lib = venv.resolve("lib");
            if (!Files.isDirectory(lib, LinkOption.NOFOLLOW_LINKS)) continue;
            try (DirectoryStream<Path> s = Files.newDirectoryStream(lib, "python*")) {
                for (Path p : s) {
                    Path site = p.resolve("site-packages");
                    if (Files.isDirectory(site, LinkOption.NOFOLLOW_LINKS) && !Files.isSymbolicLink(p)) {
                        return Optional.of(ArtifactLayer.APP + "/" + root.relativize(site.toAbsolutePath().normalize()));
                    }
                }
            } catch (IOException e) {
                // no site-packages to name
            }
        }
        return Optional.empty();
    }

    static Map<String, String> environment(Artifact a) {
        Map<String, String> env = new TreeMap<>();
        sitePackages(a).ifPresent(p -> env.put("PYTHONPATH", p));
        // the root file system is read-only in the cluster; logs should not wait in a buffer
        env.put("PYTHONDONTWRITEBYTECODE", "1");
        env.put("PYTHONUNBUFFERED", "1");
        return env;
    }

    /**
     * The start command with the venv's interpreter as the base image's, and loopback listen addresses (the
     * local runtime's, which a pod's Service cannot reach) as every address.
     */
    static List<String> entrypoint(List<String> command) {
        List<String> out = new ArrayList<>(command);
        for (int i = 0; i < out.size(); i++) {
            String arg = out.get(i);
            if (arg.endsWith("/" + VENV + "/bin/python") || arg.endsWith("/" + VENV + "/bin/python3")) out.set(i, INTERPRETER);
            if (i > 0 && out.get(i - 1).equals("--host") && arg.equals("127.0.0.1")) out.set(i, "0.0.0.0");
            if (i > 0 && (out.get(i - 1).equals("--bind") || out.get(i - 1).equals("-b")) && arg.startsWith("127.0.0.1:")) {
                out.set(i, "0.0.0.0:" + arg.substring("127.0.0.1:".length()));
            }
        }
        return out;
    }

    private static List<Path> venvs(Artifact a) {
        List<Path> out = new ArrayList<>();
        out.add(a.workDir().resolve(VENV));
        if (a.appDir() != null) out.add(a.root().resolve(VENV));
        return out;
    }
}
