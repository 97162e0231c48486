package dev.slipway.projects;

import org.jdbi.v3.core.Handle;

/** Told when a write that a project read shows (the project, its env vars, its database) has committed. */
public interface ProjectChanges {
    ProjectChanges NONE = projectId -> {};

    /** {@code projectId} changed; null: some project, which one unknown. */
    void changed(String projectId);

    /** {@link #changed} once the handle's transaction commits (at once without one). */
    default void changedAfterCommit(Handle h, String projectId) {
        if (h.isInTransaction()) h.afterCommit(() -> changed(projectId));
        else changed(projectId);
    }
}
