package dev.slipway.jobs;

/** A claimed unit of pipeline work: run migration or deployment {@code subjectId}, or delete project {@code subjectId}. */
public record Job(String id, String kind, String subjectId, String projectId, int attempts) {
    public static final String MIGRATION = "migration";
    public static final String DEPLOYMENT = "deployment";
    public static final String PROJECT_DELETION = "project-deletion";
}
