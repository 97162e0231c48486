package dev.slipway.build.detect;

import dev.slipway.build.BuildException;
import dev.slipway.build.PackageJson;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * How a built Node server starts: its start script, unless that script would build the app again (a deployed
 * app's files are read-only, so {@code nest start} fails with EROFS), or a meta-framework's compiled entry
 * when it has no start script ({@link Stack}).
 */
public final class ServerStarts {
    /** Commands that compile or bundle: a start script running one would write into the artifact. */
    private static final Pattern REBUILDS = Pattern.compile("(?:^|[\\s;&|(])(nest start|next build|tsc|vite build|react-router build"
            + "|nuxt build|nuxi build|svelte-kit build|(?:npm|pnpm|yarn|bun)(?: run)? build)(?=$|[\\s;&|)])");

    /** @param why for the build log, when the start is not simply the start script; null otherwise */
    public record Chosen(List<String> argv, String why) {}

    private ServerStarts() {}

    /**
     * @param scriptStart the package manager's start (runs the start script)
     * @param runScript   the package manager's run of a named script
     */
    public static Chosen choose(Path root, PackageJson pkg, List<String> scriptStart, Function<String, List<String>> runScript,
                                Stack stack) {
        Optional<String> start = pkg.script("start");
        if (start.isPresent() && !rebuilds(start.get())) return new Chosen(StartCommands.express(root, pkg, scriptStart), null);
        if (start.isPresent()) {
            String rebuilding = "the start script `" + start.get() + "` would build the app again in its read-only files";
            Optional<String> prod = pkg.script("start:prod").filter(s -> !rebuilds(s));
            if (prod.isPresent()) {
                return new Chosen(StartCommands.direct(root, prod.get()).orElseGet(() -> runScript.apply("start:prod")),
                        rebuilding + "; starting with start:prod (" + prod.get() + ") instead");
            }
            if (stack.start != null && Files.isRegularFile(root.resolve(stack.serverEntry))) {
                return new Chosen(stack.start, rebuilding + "; starting " + stack.label + "'s compiled " + stack.serverEntry + " instead");
            }
            throw new BuildException(rebuilding + ", which fails: make it run the compiled output (such as node dist/index.js), "
                    + "or add a start:prod script or a Procfile web: line that does");
        }
        if (stack.start == null) return new Chosen(StartCommands.express(root, pkg, scriptStart), null);
        if (!Files.isRegularFile(root.resolve(stack.serverEntry))) {
            throw new BuildException("the build produced no " + stack.serverEntry + ", where " + stack.label
                    + " writes its server; with another output folder, add a start script that runs it");
        }
        return new Chosen(stack.start, stack.label + "'s server, with no start script: " + String.join(" ", stack.start));
    }

    static boolean rebuilds(String script) {
        return REBUILDS.matcher(script).find();
    }
}
