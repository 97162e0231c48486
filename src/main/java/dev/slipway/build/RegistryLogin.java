package dev.slipway.build;

import dev.slipway.core.Json;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import java.util.Map;

/** A project's login to the registry its images come from; the password is a secret, masked wherever it could show. */
public record RegistryLogin(String registry, String username, String password) {
    /** Writes it as a containers auth file only the server reads, for one pull; never on a command line. */
    public Path authFile(Path file) throws IOException {
        String auth = Base64.getEncoder().encodeToString((username + ":" + password).getBytes(StandardCharsets.UTF_8));
        Files.deleteIfExists(file);
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(file, Json.write(Map.of("auths", Map.of(registry, Map.of("auth", auth)))));
        return file;
    }

    @Override
    public String toString() {
        return "RegistryLogin[" + registry + ", " + username + "]";
    }
}
