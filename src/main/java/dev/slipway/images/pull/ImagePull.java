package dev.slipway.images.pull;

import dev.slipway.build.Artifact;
import dev.slipway.build.ArtifactStore;
import dev.slipway.build.BuildException;
import dev.slipway.build.Trees;
import dev.slipway.build.oci.ImageName;
import dev.slipway.build.oci.Registries;
import dev.slipway.build.oci.Unpack;
import dev.slipway.core.Ids;
import dev.slipway.logs.LogSink;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Makes a prebuilt OCI image an artifact: its tag resolved to a digest once ({@link Registries#resolve}), that digest
 * copied and unpacked ({@link Unpack}) into the artifact's folder, with how it runs.
 */
public final class ImagePull {
    private static final String TAG = "image";

    private final Registries registries;
    private final Unpack unpack;
    private final ArtifactStore artifacts;
    private final Path artifactsDir;
    private final Path scratch;
    private final long maxBytes;
    private final Clock clock;
    private final Ids ids;

    /** @param scratch where images are copied before they are unpacked (each pull its own folder, deleted after) */
    public ImagePull(Registries registries, Unpack unpack, ArtifactStore artifacts, Path artifactsDir, Path scratch,
                     long maxBytes, Clock clock) {
        this.registries = registries;
        this.unpack = unpack;
        this.artifacts = artifacts;
        this.artifactsDir = artifactsDir;
        this.scratch = scratch;
        this.maxBytes = maxBytes;
        this.clock = clock;
        this.ids = new Ids(clock);
    }

    /** The image's digest now ({@link Registries#resolve}). */
    public ImageName resolve(ImageName image, Registries.Caller caller, LogSink log) {
        return registries.resolve(image, caller, log);
    }

    /** Copies and unpacks {@code resolved} (a digest from {@link #resolve}) as a new artifact of the project. */
    public Artifact pull(String projectId, ImageName resolved, Registries.Caller caller, LogSink log) {
        if (!resolved.pinned()) throw new IllegalArgumentException("pull a resolved image, not " + resolved);
        Instant started = clock.instant();
        Path dir = workDir();
        String id = ids.next("art");
        Path root = artifactsDir.resolve(id);
        try {
            Path layout = dir.resolve("layout");
            registries.copy(resolved, layout, TAG, caller, log);
            Unpack.Unpacked image = unpack.unpack(layout, TAG, root, maxBytes, resolved.toString(), caller.env(), caller.secrets(), log);
            Artifact artifact = new Artifact(id, projectId, "image", null, root, image.command(), null, false, null,
                    clock.instant(), List.of(), image.run());
            artifacts.save(artifact, image.bytes(), Duration.between(started, clock.instant()));
            return artifact;
        } catch (BuildException e) {
            Trees.delete(root);
            throw e.getMessage().startsWith("Cannot pull") ? e : new BuildException("Cannot pull " + resolved + ": " + e.getMessage(), e);
        } catch (IOException | RuntimeException e) {
            Trees.delete(root);
            throw new BuildException("Cannot unpack " + resolved + ": " + e.getMessage(), e);
        } finally {
            Trees.delete(dir);
        }
    }

    private Path workDir() {
        try {
            Files.createDirectories(scratch);
            Path dir = Files.createTempDirectory(scratch, "pull-");
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
            return dir;
        } catch (IOException e) {
            throw new BuildException("cannot make a folder for the image under " + scratch + ": " + e.getMessage(), e);
        }
    }
}
