package dev.slipway.testing;

import java.net.URI;
import java.nio.file.Path;

/**
 * The npm registry every test server installs packages from: one {@link NpmMirror} per test JVM, keeping what it
 * fetched in {@code target/npm-mirror}, which the build's test JVMs share (a file appears there by an atomic move).
 * A package the run fetched once comes from loopback after that, however slow the public registry is that day.
 */
public final class SharedNpmMirror {
    private SharedNpmMirror() {}

    private static final class Holder {
        static final NpmMirror MIRROR = NpmMirror.start(Path.of("target", "npm-mirror"));
    }

    public static URI url() {
        return Holder.MIRROR.url();
    }
}
