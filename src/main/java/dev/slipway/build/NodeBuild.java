package dev.slipway.build;

import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Installs a Node app's packages and runs its build, in the workspace. */
final class NodeBuild {
    private static final List<String> INSTALL_FLAGS = List.of("--no-audit", "--no-fund", "--prefer-offline", "--include=dev");

    private final Steps steps;

    NodeBuild(Steps steps) {
        this.steps = steps;
    }

    void install(Path dir, LogSink log) {
        boolean locked = Files.isRegularFile(dir.resolve("package-lock.json")) || Files.isRegularFile(dir.resolve("npm-shrinkwrap.json"));
        if (!locked) {
            for (String other : List.of("yarn.lock", "pnpm-lock.yaml", "bun.lockb")) {
                if (Files.exists(dir.resolve(other))) log.log(Level.WARNING, other + " is ignored: Slipway installs with npm");
            }
        }
        List<String> argv = new ArrayList<>(List.of("npm", locked ? "ci" : "install"));
        argv.addAll(INSTALL_FLAGS);
        steps.run(argv, dir, log);
    }

    /** Runs the build script, or {@code fallbackTool build} from node_modules/.bin when there is none (null: skip). */
    void build(Path dir, PackageJson pkg, String fallbackTool, LogSink log) {
        if (pkg.script("build").isPresent()) {
            steps.run(List.of("npm", "run", "build"), dir, log);
        } else if (fallbackTool != null) {
            Path tool = dir.resolve("node_modules/.bin").resolve(fallbackTool);
            if (!Files.isExecutable(tool)) throw new BuildException("package.json has no build script and " + fallbackTool + " is not installed");
            steps.run(List.of(tool.toString(), "build"), dir, log);
        } else {
            log.log(Level.INFO, "No build script in package.json; nothing to build");
        }
    }
}
