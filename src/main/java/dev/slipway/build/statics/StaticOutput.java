package dev.slipway.build.statics;

import dev.slipway.build.BuildException;
import dev.slipway.build.Framework;
import dev.slipway.build.PackageJson;
import dev.slipway.build.detect.Stack;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Where a static build put the site, and whether it is a single-page app. A {@link Stack} writes it where it does,
 * Next's export to {@code out/}, Vite to {@code dist/}; other builds are looked for in the usual folders; a site without a build is its folder.
 *
 * @param spaFallback unknown paths get index.html: a Vite build without a 404.html
 */
public record StaticOutput(Path dir, boolean spaFallback) {
    static final List<String> USUAL = List.of("dist", "build", "out", "public", "_site");
    public static final String NOT_FOUND_PAGE = "404.html";

    /**
     * @param framework react-vite is a Vite single-page app whatever its package.json says
     * @param stack     a meta-framework's site is where it writes it (SvelteKit's build/, Nuxt's .output/public)
     */
    public static StaticOutput find(Path app, Optional<PackageJson> pkg, Framework framework, Stack stack) {
        if (stack.siteDir != null && framework != Framework.REACT_VITE) {
            Path dir = app.resolve(stack.siteDir);
            if (!Files.isRegularFile(dir.resolve("index.html"))) {
                throw new BuildException("the build produced no " + stack.siteDir + "/index.html, where " + stack.label
                        + " writes its static site");
            }
            return new StaticOutput(dir, stack.spa && !Files.isRegularFile(dir.resolve(NOT_FOUND_PAGE)));
        }
        boolean vite = framework == Framework.REACT_VITE || pkg.map(p -> p.dependsOn("vite")).orElse(false);
        Path dir;
        if (vite) {
            dir = app.resolve("dist");
        } else if (pkg.isEmpty()) {
            dir = app;
        } else if (pkg.get().dependsOn("next")) {
            dir = app.resolve("out");
        } else {
            dir = USUAL.stream().map(app::resolve).filter(d -> Files.isRegularFile(d.resolve("index.html"))).findFirst()
                    .orElseThrow(() -> new BuildException("the build produced no site: looked for index.html in "
                            + String.join(", ", USUAL.stream().map(d -> d + "/").toList())));
        }
        if (!Files.isRegularFile(dir.resolve("index.html"))) {
            throw new BuildException(dir.equals(app) ? "a static site without a build needs an index.html in its folder"
                    : "the build produced no " + app.relativize(dir) + "/index.html (the site is served from "
                    + app.relativize(dir) + "/)");
        }
        return new StaticOutput(dir, vite && !Files.isRegularFile(dir.resolve(NOT_FOUND_PAGE)));
    }
}
