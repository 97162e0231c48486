package dev.slipway.build.node;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.slipway.build.BuildException;
import dev.slipway.build.PackageJson;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * npm, yarn and pnpm workspaces: an app in a folder of a monorepo installs at the workspace's root (one
 * lockfile, hoisted packages), and builds and starts in its own folder.
 */
public final class PackageWorkspaces {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private PackageWorkspaces() {}

    /** The nearest folder from {@code app} up to {@code top} that declares workspaces; {@code app} when none does. */
    public static Path rootOf(Path top, Path app) {
        for (Path dir = app.getParent(); dir != null && dir.startsWith(top); dir = dir.getParent()) {
            if (declaresWorkspaces(dir)) return dir;
        }
        return app;
    }

    private static boolean declaresWorkspaces(Path dir) {
        if (Files.isRegularFile(dir.resolve("pnpm-workspace.yaml"))) return true;
        Path pkg = dir.resolve(PackageJson.FILE);
        if (!Files.isRegularFile(pkg)) return false;
        try {
            JsonNode workspaces = MAPPER.readTree(pkg.toFile()).get("workspaces");
            return workspaces != null && (workspaces.isArray() || workspaces.isObject());
        } catch (IOException | RuntimeException e) {
            throw new BuildException("the workspace's " + dir.getFileName() + "/package.json is not valid JSON", e);
        }
    }
}
