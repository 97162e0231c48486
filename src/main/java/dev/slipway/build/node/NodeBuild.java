package dev.slipway.build.node;

import dev.slipway.build.BuildException;
import dev.slipway.build.PackageJson;
import dev.slipway.build.steps.Steps;
import dev.slipway.build.toolchain.PackageManager;
import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Installs a Node app's packages and runs its build, in the workspace, with the app's package manager. */
public final class NodeBuild {
    private final Steps steps;
    private final PackageManager packageManager;

    public NodeBuild(Steps steps, PackageManager packageManager) {
        this.steps = steps;
        this.packageManager = packageManager;
    }

    public void install(Path dir, LogSink log) {
        steps.runFetching(packageManager.install(), dir, log);
    }

    /** Runs the build script, or {@code fallbackTool build} from node_modules/.bin when there is none (null: skip). */
    public void build(Path dir, PackageJson pkg, String fallbackTool, LogSink log) {
        if (pkg.script("build").isPresent()) {
            steps.run(packageManager.run("build"), dir, log);
        } else if (fallbackTool != null) {
            Path tool = dir.resolve("node_modules/.bin").resolve(fallbackTool);
            if (!Files.isExecutable(tool)) throw new BuildException("package.json has no build script and " + fallbackTool + " is not installed");
            steps.run(List.of(tool.toString(), "build"), dir, log);
        } else {
            log.log(Level.INFO, "No build script in package.json; nothing to build");
        }
    }
}
