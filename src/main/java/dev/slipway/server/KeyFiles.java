package dev.slipway.server;

import dev.slipway.config.ServerConfig;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The files of secrets the operator points the server at: the apps' wildcard TLS key ({@code --apps-tls-key}) and,
 * with the Kubernetes runtime, the kubeconfig ({@code --kubeconfig}). The server does not start while other
 * users may read one (every local user could, and before cells had an {@code /etc} of their own, every app
 * could read one kept under {@code /etc}); the message names the file and the {@code chmod} that fixes it. A
 * group the operator chose may read them. The data dir's own keys are the server's, made owner-only
 * ({@code DataDir}).
 */
final class KeyFiles {
    private KeyFiles() {}

    /** @throws IllegalArgumentException naming the first such file that others may read, and the fix */
    static void requireClosed(ServerConfig config) {
        Map<String, Path> files = new LinkedHashMap<>();
        if (config.tls().wildcardKey() != null) files.put("the apps TLS key", config.tls().wildcardKey());
        if (config.kubernetes().enabled() && config.kubernetes().kubeconfig() != null) {
            files.put("the kubeconfig", Path.of(config.kubernetes().kubeconfig()));
        }
        files.forEach((what, file) -> {
            Set<PosixFilePermission> mode;
            try {
                mode = Files.getPosixFilePermissions(file);
            } catch (IOException e) {
                return; // its reader says why it cannot be read
            }
            if (mode.contains(PosixFilePermission.OTHERS_READ)) {
                throw new IllegalArgumentException(what + " " + file + " is readable by other users (mode "
                        + PosixFilePermissions.toString(mode) + "); make it readable by its owner only: chmod 600 " + file);
            }
        });
    }
}
