package dev.slipway.build.node;

import dev.slipway.build.toolchain.PackageManager;
import java.util.List;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class DevDependenciesTest {
    @Test
    void eachPackageManagerDropsDevDependenciesItsOwnWayOrNotAtAll() {
        assertThat(prune(PackageManager.Kind.NPM, null)).containsExactly("npm", "prune", "--omit=dev", "--no-audit", "--no-fund");
        assertThat(prune(PackageManager.Kind.PNPM, "/p/bin/pnpm")).containsExactly("/p/bin/pnpm", "prune", "--prod");
        assertThat(prune(PackageManager.Kind.YARN_CLASSIC, "/y/bin/yarn"))
                .startsWith("/y/bin/yarn", "install", "--production", "--frozen-lockfile");
        assertThat(prune(PackageManager.Kind.YARN_BERRY, "/y/bin/yarn")).containsExactly("/y/bin/yarn", "workspaces", "focus", "--production");
        assertThat(prune(PackageManager.Kind.BUN, "/b/bin/bun")).isEmpty();
    }

    private static List<String> prune(PackageManager.Kind kind, String program) {
        return new DevDependencies(null, new PackageManager(kind, true, program == null ? null : Path.of(program)), null).pruneCommand();
    }
}
