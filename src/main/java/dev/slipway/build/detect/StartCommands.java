package dev.slipway.build.detect;

import dev.slipway.build.BuildException;
import dev.slipway.build.PackageJson;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Works out the argv that starts a built app, from its final artifact directory. Programs the app
 * installed ({@code node_modules/.bin}, the venv's {@code bin}) are resolved to absolute paths, since
 * the runtime's PATH does not contain them; {@code node}, {@code npm} and other system programs are
 * left to the runtime's PATH.
 */
public final class StartCommands {
    static final String PORT = CommandLine.PORT_TOKEN;
    public static final String LOOPBACK = "127.0.0.1";
    public static final String VENV = ".venv";
    static final List<String> NPM_START = List.of("npm", "start");
    /** yarn berry's Plug'n'Play resolver, in place of node_modules. */
    private static final String PNP = ".pnp.cjs";

    private StartCommands() {}

    /** Python programs a Procfile may name bare; they run as modules of the venv's interpreter. */
    static final Set<String> PYTHON_MODULES = Set.of("uvicorn", "gunicorn", "fastapi", "flask",
            "hypercorn", "daphne", "waitress-serve");

    /**
     * A Procfile web: command with its program resolved against the app's own bin directories. In a Python
     * app, {@code python} is the venv's and a server program runs as {@code python -m}, so it works whether
     * or not the program is on PATH.
     */
    public static List<String> procfile(Path root, List<String> argv) {
        List<String> out = new ArrayList<>(argv);
        String program = argv.get(0);
        Path venvPython = root.resolve(VENV).resolve("bin").resolve("python");
        if (Files.isExecutable(venvPython)) {
            if (program.equals("python") || program.equals("python3")) {
                out.set(0, venvPython.toString());
                return List.copyOf(out);
            }
            if (PYTHON_MODULES.contains(program)) {
                out.set(0, program.equals("waitress-serve") ? "waitress" : program);
                out.addAll(0, List.of(venvPython.toString(), "-m"));
                return List.copyOf(out);
            }
        }
        ownProgram(root, program).ifPresent(p -> out.set(0, p.toString()));
        return List.copyOf(out);
    }

    static List<String> nextjs(Path root, PackageJson pkg) {
        return nextjs(root, pkg, NPM_START);
    }

    /** The start script, else {@code next start} on the runtime's port; {@code scriptStart} runs a script that needs it. */
    public static List<String> nextjs(Path root, PackageJson pkg, List<String> scriptStart) {
        return startScript(root, pkg, scriptStart).orElseGet(() -> nextStart(root, List.of()));
    }

    static List<String> express(Path root, PackageJson pkg) {
        return express(root, pkg, NPM_START);
    }

    /** DESIGN §4: the start script, else package.json main, else index.js. */
    public static List<String> express(Path root, PackageJson pkg, List<String> scriptStart) {
        Optional<List<String>> script = startScript(root, pkg, scriptStart);
        if (script.isPresent()) return script.get();
        if (pkg.main() != null && !pkg.main().isBlank()) {
            Path main = root.resolve(pkg.main()).normalize();
            if (!main.startsWith(root)) throw new BuildException("package.json main \"" + pkg.main() + "\" points outside the app");
            if (!Files.isRegularFile(main) && !Files.isRegularFile(Path.of(main + ".js")))
                throw new BuildException("package.json main \"" + pkg.main() + "\" does not exist after the build");
            return node(root, pkg.main());
        }
        if (Files.isRegularFile(root.resolve("index.js"))) return node(root, "index.js");
        throw new BuildException("no way to start the app: package.json has no start script and no main, and there "
                + "is no index.js; add one of them or a Procfile with a web: line");
    }

    /**
     * The start script run directly when it is plain, through the package manager's start otherwise (or when it
     * has pre/post hooks, or when yarn's Plug'n'Play resolves the app's modules: only yarn sets that up).
     */
    private static Optional<List<String>> startScript(Path root, PackageJson pkg, List<String> scriptStart) {
        Optional<String> start = pkg.script("start");
        if (start.isEmpty()) return Optional.empty();
        if (pkg.scripts().containsKey("prestart") || pkg.scripts().containsKey("poststart") || pnp(root)) {
            return Optional.of(scriptStart);
        }
        return Optional.of(direct(root, start.get()).orElse(scriptStart));
    }

    private static List<String> node(Path root, String main) {
        return pnp(root) ? List.of("node", "--require", "./" + PNP, main) : List.of("node", main);
    }

    private static boolean pnp(Path root) {
        return Files.isRegularFile(root.resolve(PNP));
    }

    /** ASGI through uvicorn, WSGI through gunicorn, with the venv's interpreter. */
    public static List<String> python(Path root, PythonApps.Entry app) {
        String python = root.resolve(VENV).resolve("bin").resolve("python").toString();
        List<String> out = new ArrayList<>(List.of(python, "-m"));
        if (app.asgi()) {
            out.addAll(List.of("uvicorn", app.target(), "--host", LOOPBACK, "--port", PORT));
            if (!app.appDir().equals(".")) out.addAll(List.of("--app-dir", app.appDir()));
        } else {
            out.addAll(List.of("gunicorn", app.target(), "--bind", LOOPBACK + ":" + PORT, "--workers", "2",
                    "--access-logfile", "-"));
            if (!app.appDir().equals(".")) out.addAll(List.of("--chdir", app.appDir()));
        }
        return List.copyOf(out);
    }

    /**
     * The program an npm script runs, started directly when it is a plain command: {@code node x.js},
     * {@code next start}, or a program from node_modules/.bin. Empty when npm must run it (shell syntax,
     * other variables, an unknown program), so the caller falls back to {@code npm start}.
     */
    static Optional<List<String>> direct(Path root, String script) {
        List<String> argv;
        try {
            argv = CommandLine.split(script);
        } catch (BuildException needsShell) {
            return Optional.empty();
        }
        String program = argv.get(0);
        if (program.equals("node")) return Optional.of(argv);
        if (program.equals("next") && argv.size() >= 2 && argv.get(1).equals("start")) {
            return Optional.of(nextStart(root, argv.subList(2, argv.size())));
        }
        return ownProgram(root, program).map(p -> {
            List<String> out = new ArrayList<>(argv);
            out.set(0, p.toString());
            return List.copyOf(out);
        });
    }

    /** {@code next start} with the runtime's port and, unless the app chose, loopback only. */
    private static List<String> nextStart(Path root, List<String> args) {
        List<String> out = new ArrayList<>();
        out.add(ownProgram(root, "next").orElse(root.resolve("node_modules/.bin/next")).toString());
        out.add("start");
        out.addAll(args);
        if (!args.contains("-p") && !args.contains("--port") && args.stream().noneMatch(a -> a.startsWith("--port="))) {
            out.addAll(List.of("-p", PORT));
        }
        if (!args.contains("-H") && !args.contains("--hostname") && args.stream().noneMatch(a -> a.startsWith("--hostname="))) {
            out.addAll(List.of("-H", LOOPBACK));
        }
        return List.copyOf(out);
    }

    /** The app's own program: in its venv or node_modules/.bin, or in a workspace root's hoisted .bin above it. */
    private static Optional<Path> ownProgram(Path root, String program) {
        if (program.contains("/")) return Optional.empty();
        List<Path> bins = new ArrayList<>(List.of(root.resolve("node_modules/.bin"), root.resolve(VENV).resolve("bin")));
        Path up = root.getParent();
        for (int i = 0; i < WORKSPACE_DEPTH && up != null; i++, up = up.getParent()) bins.add(up.resolve("node_modules/.bin"));
        for (Path bin : bins) {
            Path candidate = bin.resolve(program);
            if (Files.isExecutable(candidate)) return Optional.of(candidate);
        }
        return Optional.empty();
    }

    /** How far above an app's folder a workspace root's packages are looked for (apps/web → the top is 2). */
    private static final int WORKSPACE_DEPTH = 3;
}
