package dev.slipway.build.detect;

import dev.slipway.build.BuildException;
import dev.slipway.build.Framework;
import dev.slipway.build.PackageJson;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The meta-frameworks whose build decides whether the app is a server or a site, and where their output is:
 * a Node server's compiled entry, or a static site's folder. Named by what package.json declares (an adapter,
 * the framework's own build tool) and, for React Router, by its config, never by Vite alone.
 */
public enum Stack {
    /** {@code @sveltejs/kit}: adapter-node writes a server to build/ ({@code node build}); adapter-static, a site there. */
    SVELTEKIT("SvelteKit", "build", List.of("node", "build"), "build/index.js", false),
    /** {@code nuxt}: {@code nuxt build} writes a Nitro server to .output/server; {@code nuxt generate}, a site to .output/public. */
    NUXT("Nuxt", ".output/public", List.of("node", ".output/server/index.mjs"), ".output/server/index.mjs", false),
    /** {@code @react-router/dev} (framework mode): a server bundle in build/server, or with {@code ssr: false} an SPA in build/client. */
    REACT_ROUTER("React Router", "build/client", null, "build/server/index.js", true),
    /** {@code @nestjs/core}: compiled by {@code nest build} to dist/main.js. */
    NESTJS("NestJS", null, List.of("node", "dist/main"), "dist/main.js", false),
    NONE("", null, null, null, false);

    private static final Pattern SSR_OFF = Pattern.compile("\\bssr\\s*:\\s*false\\b");
    private static final List<String> REACT_ROUTER_CONFIGS = List.of("react-router.config.ts", "react-router.config.js",
            "react-router.config.mjs", "react-router.config.mts");

    public final String label;
    /** Where its static build puts the site; null: it builds no site. */
    public final String siteDir;
    /** Its server's compiled entry, started directly; null: its start script starts it. */
    public final List<String> start;
    /** The file its server build writes, checked after the build; null: none to check. */
    public final String serverEntry;
    /** Its site is a single-page app: unknown paths get index.html. */
    public final boolean spa;

    Stack(String label, String siteDir, List<String> start, String serverEntry, boolean spa) {
        this.label = label;
        this.siteDir = siteDir;
        this.start = start;
        this.serverEntry = serverEntry;
        this.spa = spa;
    }

    /** The stack package.json declares; {@link #NONE} when it declares none of these. */
    public static Stack of(Optional<PackageJson> pkg) {
        if (pkg.isEmpty()) return NONE;
        PackageJson p = pkg.get();
        if (p.dependsOn("@sveltejs/kit")) return SVELTEKIT;
        if (p.dependsOn("nuxt")) return NUXT;
        if (p.dependsOn("@react-router/dev")) return REACT_ROUTER;
        if (p.dependsOn("@nestjs/core")) return NESTJS;
        return NONE;
    }

    /**
     * Whether it is a Node server or a static site, and why; empty for {@link #NONE}.
     *
     * @throws BuildException for a SvelteKit app whose adapter builds nothing this platform can run
     */
    Optional<FrameworkDetector.Detection> detect(Path dir, PackageJson p) {
        return Optional.ofNullable(switch (this) {
            case SVELTEKIT -> {
                if (p.dependsOn("@sveltejs/adapter-node")) {
                    yield new FrameworkDetector.Detection(Framework.NODE, "SvelteKit with @sveltejs/adapter-node (a Node server: node build)");
                }
                if (p.dependsOn("@sveltejs/adapter-static")) {
                    yield new FrameworkDetector.Detection(Framework.STATIC, "SvelteKit with @sveltejs/adapter-static (a static site in build/)");
                }
                throw new BuildException("SvelteKit needs an adapter that builds for a server of your own: "
                        + (p.dependsOn("@sveltejs/adapter-auto") ? "@sveltejs/adapter-auto builds nothing outside the hosts it knows. " : "")
                        + "Install @sveltejs/adapter-node (a Node server) or @sveltejs/adapter-static (a static site) and name it "
                        + "in svelte.config.js or vite.config.ts (npx sv add sveltekit-adapter=adapter:node)");
            }
            case NUXT -> p.script("build").filter(s -> s.contains("nuxt generate")).isPresent()
                    ? new FrameworkDetector.Detection(Framework.STATIC, "Nuxt whose build script runs nuxt generate (a static site in .output/public)")
                    : new FrameworkDetector.Detection(Framework.NODE, "Nuxt (a Nitro server: node .output/server/index.mjs)");
            case REACT_ROUTER -> spaMode(dir)
                    ? new FrameworkDetector.Detection(Framework.STATIC, "React Router with ssr: false (a single-page app in build/client)")
                    : new FrameworkDetector.Detection(Framework.NODE, "React Router in framework mode (a server: its start script)");
            case NESTJS -> new FrameworkDetector.Detection(Framework.NODE, "NestJS (a Node server: its compiled dist/main.js)");
            case NONE -> null;
        });
    }

    /** React Router's SPA mode: {@code ssr: false} in its config. */
    private static boolean spaMode(Path dir) {
        for (String name : REACT_ROUTER_CONFIGS) {
            Path config = dir.resolve(name);
            if (Files.isRegularFile(config) && SSR_OFF.matcher(String.join("\n", FrameworkDetector.readLines(config))).find()) {
                return true;
            }
        }
        return false;
    }
}
