package dev.slipway.images;

import java.util.LinkedHashMap;
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
 */
public record ImageSettings(String registry, Map<String, String> bases, boolean insecure) {
    public static final Map<String, String> DEFAULT_BASES = Map.of("node", "node:{version}-slim", "python", "python:{version}-slim");
    public static final ImageSettings OFF = new ImageSettings(null, DEFAULT_BASES, false);
    private static final Pattern REGISTRY = Pattern.compile("[A-Za-z0-9.-]+(:[0-9]{1,5})?(/[a-z0-9]+([._-][a-z0-9]+)*)*");
    private static final Pattern IMAGE = Pattern.compile("[A-Za-z0-9._:/@{}-]{1,300}");

    public ImageSettings {
        if (registry != null && !REGISTRY.matcher(registry).matches()) {
            throw new IllegalArgumentException("SLIPWAY_IMAGE_REGISTRY must look like host[:port][/path], got '" + registry + "'");
        }
        Map<String, String> all = new LinkedHashMap<>(DEFAULT_BASES);
        all.putAll(bases == null ? Map.of() : bases);
        bases = Map.copyOf(all);
    }

    public boolean enabled() {
        return registry != null;
    }

    /**
     * Reads {@code SLIPWAY_IMAGE_REGISTRY}, {@code SLIPWAY_IMAGE_BASES} ({@code node=<image>,python=<image>})
     * and {@code SLIPWAY_IMAGE_INSECURE} (true/false). A bad value names its variable.
     */
    public static ImageSettings fromEnv(Map<String, String> env) {
        String registry = env.get("SLIPWAY_IMAGE_REGISTRY");
        registry = registry == null || registry.isBlank() ? null : registry.strip();
        Map<String, String> bases = new LinkedHashMap<>();
        String list = env.get("SLIPWAY_IMAGE_BASES");
        if (list != null && !list.isBlank()) {
            for (String pair : list.split(",")) {
                int eq = pair.indexOf('=');
                String runtime = eq < 0 ? "" : pair.substring(0, eq).strip();
                String image = eq < 0 ? "" : pair.substring(eq + 1).strip();
                if (!DEFAULT_BASES.containsKey(runtime) || !IMAGE.matcher(image).matches()) {
                    throw new IllegalArgumentException("SLIPWAY_IMAGE_BASES must be node=<image>,python=<image>, got '" + list + "'");
                }
                bases.put(runtime, image);
            }
        }
        String insecure = env.getOrDefault("SLIPWAY_IMAGE_INSECURE", "false").strip();
        if (!insecure.equals("true") && !insecure.equals("false")) {
            throw new IllegalArgumentException("SLIPWAY_IMAGE_INSECURE must be true or false, got '" + insecure + "'");
        }
        return new ImageSettings(registry, bases, Boolean.parseBoolean(insecure));
    }

    public ImageSettings withRegistry(String v) {
        return new ImageSettings(v == null || v.isBlank() ? null : v.strip(), bases, insecure);
    }
}
