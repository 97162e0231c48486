package dev.slipway.images;

import dev.slipway.core.Env;
import dev.slipway.core.Setting;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Where builds go as OCI images. Off (no registry) by default: then no image is made and nothing else changes.
 *
 * @param registry where images are pushed, {@code host[:port][/path]}; each project is a repository under it
 *                 ({@code <registry>/<project id>}) tagged with the artifact id. Null: off
 * @param bases    base image per runtime ({@code node}, {@code python}); {@code {version}} in the node one is
 *                 replaced by the Node version the artifact was built with ({@code lts} for the machine's Node), in the
 *                 python one by the {@code major.minor} of the interpreter its venv was made with
 * @param insecure plain HTTP (and unverified HTTPS) to the registries is allowed: a loopback registry
 * @param maxMb    the most a prebuilt image may hold, compressed as pulled and unpacked
 */
public record ImageSettings(String registry, Map<String, String> bases, boolean insecure, int maxMb) {
    public static final Map<String, String> DEFAULT_BASES = Map.of("node", "node:{version}-slim", "python", "python:{version}-slim");
    public static final int DEFAULT_MAX_MB = 4096;
    public static final ImageSettings OFF = new ImageSettings(null, DEFAULT_BASES, false, DEFAULT_MAX_MB);
    private static final Pattern REGISTRY_FORMAT = Pattern.compile("[A-Za-z0-9.-]+(:[0-9]{1,5})?(/[a-z0-9]+([._-][a-z0-9]+)*)*");
    public static final Setting REGISTRY = Setting.flag("--image-registry", "SLIPWAY_IMAGE_REGISTRY", "none (images off)",
            "push every build as an OCI image to this registry, `host[:port][/path]` (e.g. `127.0.0.1:5000/slipway`): "
                    + "one repository per project ([Images](#images))");
    public static final Setting BASES = Setting.env("SLIPWAY_IMAGE_BASES", "`node=node:{version}-slim,python=python:{version}-slim`",
            "base image per runtime; `{version}` is the Node version the build used (`lts` for the machine's Node), or the "
                    + "`major.minor` of the Python the build's venv was made with");
    public static final Setting INSECURE = Setting.env("SLIPWAY_IMAGE_INSECURE", "`false`",
            "`true`: the registries (target and bases) may be plain HTTP or unverified HTTPS — a loopback registry");
    public static final Setting MAX_MB = Setting.env("SLIPWAY_IMAGE_MAX_MB", "`4096`",
            "the most a prebuilt image may hold, in MB, compressed as pulled and again unpacked ([Prebuilt images](#prebuilt-images))");
    private static final Pattern IMAGE = Pattern.compile("[A-Za-z0-9._:/@{}-]{1,300}");

    public ImageSettings {
        if (registry != null && !REGISTRY_FORMAT.matcher(registry).matches()) {
            throw new IllegalArgumentException(REGISTRY.variable() + " must look like host[:port][/path], got '" + registry + "'");
        }
        Map<String, String> all = new LinkedHashMap<>(DEFAULT_BASES);
        all.putAll(bases == null ? Map.of() : bases);
        bases = Map.copyOf(all);
        if (maxMb < 1) throw new IllegalArgumentException(MAX_MB.variable() + " must be at least 1, got " + maxMb);
    }

    /** With the default limit of a prebuilt image. */
    public ImageSettings(String registry, Map<String, String> bases, boolean insecure) {
        this(registry, bases, insecure, DEFAULT_MAX_MB);
    }

    public long maxBytes() {
        return (long) maxMb << 20;
    }

    public ImageSettings withMaxMb(int v) {
        return new ImageSettings(registry, bases, insecure, v);
    }

    public boolean enabled() {
        return registry != null;
    }

    /** The registry, the base images and whether plain HTTP is allowed, from the environment; a bad value names its variable. */
    public static ImageSettings fromEnv(Env env) {
        Map<String, String> bases = new LinkedHashMap<>();
        for (String pair : env.list(BASES, List.of())) {
            int eq = pair.indexOf('=');
            String runtime = eq < 0 ? "" : pair.substring(0, eq).strip();
            String image = eq < 0 ? "" : pair.substring(eq + 1).strip();
            if (!DEFAULT_BASES.containsKey(runtime) || !IMAGE.matcher(image).matches()) {
                throw new IllegalArgumentException(BASES.variable() + " must be node=<image>,python=<image>, got '"
                        + env.text(BASES, "") + "'");
            }
            bases.put(runtime, image);
        }
        return new ImageSettings(env.text(REGISTRY, null), bases, env.bool(INSECURE, false), env.integer(MAX_MB, 1, 1 << 20, DEFAULT_MAX_MB));
    }

    public ImageSettings withRegistry(String v) {
        return new ImageSettings(v == null || v.isBlank() ? null : v.strip(), bases, insecure, maxMb);
    }
}
