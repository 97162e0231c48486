package dev.slipway.projects;

import java.time.Instant;
import java.util.List;

/**
 * A project's git settings as reads show them: the kind of its credentials and their user (never the token or
 * key), the public half of its SSH deploy key, its watch paths, and its push webhook (never the secret).
 *
 * @param credentialType {@code token}, {@code ssh}, or null: it clones anonymously
 * @param watchPaths     globs relative to the repository's top; empty: every push deploys (or, with a root
 *                       directory, every push that changes something under it)
 * @param webhookId      the last part of its push webhook's URL, or null: it has none
 * @param deployOnPush   {@code branch} (pushes to its branch deploy) or {@code tags} (pushed tags deploy)
 * @param commitStatuses whether its deployments are reported as commit statuses (with a token only)
 */
public record ProjectGit(String credentialType, String username, String sshPublicKey, List<String> watchPaths,
                         String webhookId, Instant webhookCreatedAt, String deployOnPush, boolean commitStatuses) {
    public static final ProjectGit NONE = new ProjectGit(null, null, null, List.of(), null, null, "branch", true);

    /** Whether pushed tags deploy, instead of pushes to the branch. */
    public boolean deploysTags() {
        return "tags".equals(deployOnPush);
    }

    public ProjectGit {
        watchPaths = watchPaths == null ? List.of() : List.copyOf(watchPaths);
        deployOnPush = deployOnPush == null ? "branch" : deployOnPush;
    }
}
