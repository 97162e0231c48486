package dev.slipway.projects;

/** Moves a project's addresses when its name changes. */
public interface Renames {
    Renames NONE = (id, from, to) -> { };

    /** The project {@code projectId} is called {@code to} from now on, no longer {@code from}. */
    void renamed(String projectId, String from, String to);
}
