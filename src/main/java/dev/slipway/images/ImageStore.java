package dev.slipway.images;

import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

import java.util.Optional;

/** The image of each artifact ({@code artifacts.image}, {@code <repository>@sha256:...}), written once pushed. */
public final class ImageStore {
    private final Jdbi jdbi;

    public ImageStore(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    public void record(String artifactId, String image) {
        jdbi.useHandle(h -> h.createUpdate("UPDATE artifacts SET image = :image WHERE id = :id")
                .bind("image", image).bind("id", artifactId).execute());
    }

    public Optional<String> find(String artifactId) {
        return jdbi.withHandle(h -> find(h, artifactId));
    }

    /** As {@link #find(String)}, in the caller's transaction (a webhook payload written with its change). */
    public static Optional<String> find(Handle h, String artifactId) {
        return h.createQuery("SELECT image FROM artifacts WHERE id = :id").bind("id", artifactId)
                .mapTo(String.class).findOne();
    }
}
