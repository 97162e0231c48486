package dev.slipway.build.toolchain;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** The version of the machine's {@code node}, asked once: what a build gets when it asks for no other. */
final class SystemNode {
    private static volatile Optional<Semver.Version> version;

    private SystemNode() {}

    static Optional<Semver.Version> version() {
        Optional<Semver.Version> v = version;
        if (v == null) {
            v = ask();
            version = v;
        }
        return v;
    }

    private static Optional<Semver.Version> ask() {
        try {
            Process p = new ProcessBuilder("node", "--version").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return Optional.empty();
            }
            return p.exitValue() == 0 ? Semver.Version.parse(out) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }
}
