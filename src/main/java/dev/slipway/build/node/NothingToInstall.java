package dev.slipway.build.node;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.build.PackageJson;
import dev.slipway.build.toolchain.PackageManager;
import dev.slipway.core.Json;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;

/**
 * An npm app whose package.json declares no package and no install script, with no lockfile and no node_modules of
 * its own: {@code npm install} there would only start npm (about a second of CPU) and write an empty lockfile.
 * Other package managers still install: yarn berry's install writes the Plug'n'Play files its run command reads,
 * and pnpm and bun read settings of their own.
 */
public final class NothingToInstall {
    private static final List<String> PACKAGE_FIELDS = List.of("dependencies", "devDependencies", "optionalDependencies",
            "peerDependencies", "bundleDependencies", "bundledDependencies", "workspaces", "overrides");
    private static final List<String> INSTALLED = List.of("package-lock.json", "npm-shrinkwrap.json", "node_modules");

    private NothingToInstall() {}

    public static boolean at(Path installDir, PackageManager.Kind kind) {
        if (kind != PackageManager.Kind.NPM) return false;
        if (INSTALLED.stream().anyMatch(name -> Files.exists(installDir.resolve(name), LinkOption.NOFOLLOW_LINKS))) return false;
        JsonNode root;
        try {
            root = Json.MAPPER.readTree(installDir.resolve(PackageJson.FILE).toFile());
        } catch (IOException | RuntimeException unreadable) {
            return false; // npm says what is wrong with it
        }
        if (root == null || !root.isObject()) return false;
        for (String field : PACKAGE_FIELDS) {
            if (!empty(root.get(field))) return false;
        }
        JsonNode scripts = root.path("scripts");
        return PackageJson.INSTALL_SCRIPTS.stream().noneMatch(scripts::hasNonNull);
    }

    private static boolean empty(JsonNode value) {
        return value == null || value.isNull() || (value.isContainerNode() && value.isEmpty());
    }
}
