package dev.slipway.build.python;

import dev.slipway.build.BuildException;
import dev.slipway.build.steps.Steps;
import dev.slipway.build.detect.FrameworkDetector;
import dev.slipway.build.detect.PythonApps;
import dev.slipway.build.detect.StartCommands;
import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Makes a FastAPI app's venv inside the artifact (a venv holds absolute paths, so it is made where it
 * will run) and installs its requirements offline first (DESIGN §4).
 */
public final class PythonBuild {
    /** Bounded so that an unreachable index fails in seconds rather than minutes of retries. */
    private static final List<String> ONLINE_FLAGS = List.of("--retries", "1", "--timeout", "5");
    static final String GENERATED_REQUIREMENTS = ".slipway-requirements.txt";
    /** PEP 621 {@code [project].dependencies} to a requirements file, with the standard library's TOML reader. */
    private static final String PYPROJECT_DEPENDENCIES = """
            import sys, tomllib
            with open("pyproject.toml", "rb") as f:
                deps = tomllib.load(f).get("project", {}).get("dependencies")
            if deps is None:
                sys.exit("pyproject.toml has no [project] dependencies list (Poetry's tables are not read): add a requirements.txt")
            with open(sys.argv[1], "w") as out:
                out.write("\\n".join(deps) + "\\n")
            """;

    private static final String BUNDLE_SCRIPT = resource("/build/bundle_packages.py");

    private final Steps steps;
    private final Path python;

    public PythonBuild(Steps steps, Path python) {
        this.steps = steps;
        this.python = python;
    }

    public void install(Path root, LogSink log) {
        if (!Files.isExecutable(python)) {
            throw new BuildException("the Python interpreter " + python + " does not exist; install python3 "
                    + "(with python3-venv) or set SLIPWAY_PYTHON");
        }
        Path venv = root.resolve(StartCommands.VENV);
        steps.run(List.of(python.toString(), "-m", "venv", "--system-site-packages", venv.toString()), root, log);
        String venvPython = venv.resolve("bin/python").toString();
        String requirements;
        if (Files.isRegularFile(root.resolve(FrameworkDetector.REQUIREMENTS))) {
            requirements = FrameworkDetector.REQUIREMENTS;
        } else if (Files.isRegularFile(root.resolve(FrameworkDetector.PYPROJECT))) {
            requirements = GENERATED_REQUIREMENTS;
            log.log(Level.INFO, "Reading the dependencies of pyproject.toml");
            steps.run(List.of(venvPython, "-c", PYPROJECT_DEPENDENCIES, GENERATED_REQUIREMENTS), root, log);
        } else {
            log.log(Level.INFO, "No requirements.txt or pyproject.toml; nothing to install");
            return;
        }
        pipInstall(venvPython, requirements, root, log);
        bundle(venvPython, requirements, root, log);
    }

    /**
     * Copies what the venv takes from the machine's site-packages (Debian's python3-fastapi and the like,
     * and their dependencies) into the venv: the artifact then runs on any interpreter of the same version,
     * such as an image's {@code python:<version>-slim}, and a later upgrade of the machine's packages does
     * not change a deployed build (a rollback runs what was built).
     */
    private void bundle(String venvPython, String requirements, Path root, LogSink log) {
        try {
            steps.attempt(List.of(venvPython, "-c", BUNDLE_SCRIPT, requirements), root, log);
        } catch (BuildException e) {
            // the app still runs here, on the machine's packages; only its image would miss them
            log.log(Level.WARNING, "The packages this machine provides could not be copied into the venv (" + e.getMessage()
                    + "): the app runs here, but an image of this build would lack them");
        }
    }

    private void pipInstall(String venvPython, String requirements, Path root, LogSink log) {
        List<String> pip = List.of(venvPython, "-m", "pip", "install");
        try {
            steps.attempt(concat(pip, List.of("--no-index", "-r", requirements)), root, log);
            return;
        } catch (BuildException offlineFailed) {
            log.log(Level.WARNING, "The requirements do not resolve from this machine's packages alone; "
                    + "checking whether each one is already installed");
        }
        try {
            // Distribution packages can declare dependencies their own distribution does not meet (Debian 12's
            // fastapi pins starlette<0.26 next to starlette 0.26.1), which pip's resolver refuses. The OS
            // package manager keeps those dependencies, so requirements already installed are enough. The
            // user's pip config is ignored here: its find-links could otherwise install a wheel without its
            // dependencies.
            steps.withEnv("PIP_CONFIG_FILE", "/dev/null")
                    .attempt(concat(pip, List.of("--no-index", "--no-deps", "-r", requirements)), root, log);
            return;
        } catch (BuildException notInstalled) {
            log.log(Level.WARNING, "Some requirements are not on this machine; trying the package index");
        }
        steps.run(concat(pip, concat(ONLINE_FLAGS, List.of("-r", requirements))), root, log);
    }

    private static String resource(String name) {
        try (var in = PythonBuild.class.getResourceAsStream(name)) {
            if (in == null) throw new IllegalStateException(name + " is missing from the server's resources");
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    /** Fails early, with a clear message, rather than at start-up in the runtime. */
    public void checkServer(Path root, PythonApps.Entry app) {
        String module = app.asgi() ? "uvicorn" : "gunicorn";
        try {
            steps.run(List.of(root.resolve(StartCommands.VENV).resolve("bin/python").toString(), "-c", "import " + module),
                    root, LogSink.DISCARD);
        } catch (BuildException e) {
            throw new BuildException(module + " is not installed: add " + module + " to requirements.txt to serve "
                    + app.file() + " (or start the app with a Procfile web: line)");
        }
    }
}
