package dev.slipway.projects;

/** Told when a write that a project read shows (the project, its env vars, its database) has committed. */
public interface ProjectChanges {
    ProjectChanges NONE = projectId -> {};

    /** {@code projectId} changed; null: some project, which one unknown. */
    void changed(String projectId);
}
