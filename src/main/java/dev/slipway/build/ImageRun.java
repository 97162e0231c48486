package dev.slipway.build;

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How an artifact that is an OCI image runs: its unpacked root file system is the cell's {@code /}, with the image's
 * own environment and working directory. The image's {@code USER} is not kept: an app runs as its project's uid.
 *
 * @param reference the image as pulled, {@code <repository>@sha256:<digest>}: a rollback or a re-pull gets the same bytes
 * @param env       the image's {@code Env}, in its order
 * @param workDir   the image's {@code WorkingDir}, an absolute path inside its root ({@code /} when it names none)
 */
public record ImageRun(String reference, Map<String, String> env, String workDir) {
    /** Where an image artifact keeps its root file system, under the artifact's directory. */
    public static final String ROOTFS = "rootfs";

    public ImageRun {
        env = env == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(env));
        if (workDir == null || workDir.isBlank()) workDir = "/";
        if (!workDir.startsWith("/")) workDir = "/" + workDir;
    }

    /** The image's root file system under the artifact's directory. */
    public static Path rootfs(Path artifactRoot) {
        return artifactRoot.resolve(ROOTFS);
    }
}
