package dev.slipway.pushes;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What a git host's webhook delivery says, reduced to what decides a deployment: its kind, the ref it moved, the
 * commit it moved it to, and the paths its commits changed (null when the payload does not list them all).
 */
record PushEvent(Kind kind, String ref, String after, Set<String> changed, boolean fork) {
    PushEvent(Kind kind, String ref, String after, Set<String> changed) {
        this(kind, ref, after, changed, false);
    }

    enum Kind {
        /** A branch moved to {@code after}. */
        BRANCH,
        /** A tag was pushed. */
        TAG,
        /** A branch or tag was deleted. */
        DELETED,
        /** A pull (merge) request was opened, reopened or got new commits: {@code ref} is its head branch. */
        PULL_REQUEST,
        /** A pull (merge) request was closed or merged. */
        PULL_REQUEST_CLOSED,
        /** The host checks that the webhook answers. */
        PING,
        /** Anything else (issues, pull requests, …): nothing to deploy. */
        OTHER
    }

    static final String BRANCH_PREFIX = "refs/heads/";
    private static final Pattern SHA = Pattern.compile("[0-9a-f]{40}");
    private static final Pattern ZEROS = Pattern.compile("0+");
    /** GitHub lists at most this many commits in a push. */
    private static final int GITHUB_COMMIT_LIMIT = 2048;

    /** The branch a branch push moved. */
    String branch() {
        return ref.substring(BRANCH_PREFIX.length());
    }

    /**
     * @param event the host's event header
     * @throws IllegalArgumentException when a push's payload lacks its ref or commit, with what is wrong
     */
    static PushEvent parse(GitHost host, String event, JsonNode payload) {
        String name = event.trim().toLowerCase(Locale.ROOT);
        boolean push = host == GitHost.GITLAB ? name.equals("push hook") || name.equals("tag push hook") : name.equals("push");
        if (host == GitHost.GITHUB && name.equals("ping")) return new PushEvent(Kind.PING, null, null, null);
        if (host == GitHost.GITLAB ? name.equals("merge request hook") : name.equals("pull_request")) {
            return host == GitHost.GITLAB ? mergeRequest(payload) : pullRequest(payload);
        }
        if (!push) return new PushEvent(Kind.OTHER, null, null, null);
        String ref = text(payload, "ref");
        String after = text(payload, "after");
        if (ref == null) throw new IllegalArgumentException("the push payload has no ref");
        if (after == null) throw new IllegalArgumentException("the push payload has no after (the commit pushed)");
        after = after.toLowerCase(Locale.ROOT);
        if (ZEROS.matcher(after).matches() || payload.path("deleted").asBoolean(false)) {
            return new PushEvent(Kind.DELETED, ref, null, null);
        }
        if (!SHA.matcher(after).matches()) throw new IllegalArgumentException("the push payload's after is not a commit sha");
        if (!ref.startsWith(BRANCH_PREFIX) || ref.length() == BRANCH_PREFIX.length()) {
            return new PushEvent(Kind.TAG, ref, taggedCommit(host, payload, after), null);
        }
        return new PushEvent(Kind.BRANCH, ref, after, changed(host, payload));
    }

    /**
     * The commit a pushed tag names: an annotated tag's {@code after} is the tag object, so the commit is read from
     * GitHub's and Gitea's {@code head_commit.id} or GitLab's {@code checkout_sha} when they give it.
     */
    private static String taggedCommit(GitHost host, JsonNode payload, String after) {
        String commit = host == GitHost.GITLAB ? text(payload, "checkout_sha") : text(payload.path("head_commit"), "id");
        return commit != null && SHA.matcher(commit.toLowerCase(Locale.ROOT)).matches() ? commit.toLowerCase(Locale.ROOT) : after;
    }

    /** GitHub's and Gitea's {@code pull_request}: opened, synchronize(d), reopened, closed. */
    private static PushEvent pullRequest(JsonNode payload) {
        Kind kind = switch (payload.path("action").asText()) {
            case "opened", "reopened", "synchronize", "synchronized" -> Kind.PULL_REQUEST;
            case "closed" -> Kind.PULL_REQUEST_CLOSED;
            default -> Kind.OTHER;
        };
        if (kind == Kind.OTHER) return new PushEvent(kind, null, null, null);
        JsonNode head = payload.path("pull_request").path("head");
        String headRepo = head.path("repo").path("full_name").asText("");
        String baseRepo = payload.path("pull_request").path("base").path("repo").path("full_name").asText("");
        return pr(kind, text(head, "ref"), text(head, "sha"), !headRepo.equalsIgnoreCase(baseRepo));
    }

    /** GitLab's {@code Merge Request Hook}: open, reopen, update with new commits, close, merge. */
    private static PushEvent mergeRequest(JsonNode payload) {
        JsonNode mr = payload.path("object_attributes");
        Kind kind = switch (mr.path("action").asText()) {
            case "open", "reopen" -> Kind.PULL_REQUEST;
            case "update" -> mr.hasNonNull("oldrev") ? Kind.PULL_REQUEST : Kind.OTHER; // no oldrev: no new commit
            case "close", "merge" -> Kind.PULL_REQUEST_CLOSED;
            default -> Kind.OTHER;
        };
        if (kind == Kind.OTHER) return new PushEvent(kind, null, null, null);
        boolean fork = mr.path("source_project_id").asLong(-1) != mr.path("target_project_id").asLong(-2);
        return pr(kind, text(mr, "source_branch"), text(mr.path("last_commit"), "id"), fork);
    }

    private static PushEvent pr(Kind kind, String branch, String sha, boolean fork) {
        if (branch == null) throw new IllegalArgumentException("the pull request payload has no head branch");
        if (kind == Kind.PULL_REQUEST && (sha == null || !SHA.matcher(sha.toLowerCase(Locale.ROOT)).matches())) {
            throw new IllegalArgumentException("the pull request payload's head is not a commit sha");
        }
        return new PushEvent(kind, BRANCH_PREFIX + branch, sha == null ? null : sha.toLowerCase(Locale.ROOT), null, fork);
    }

    /** The paths the pushed commits added, changed or removed; null when the payload may not list every commit. */
    private static Set<String> changed(GitHost host, JsonNode payload) {
        JsonNode commits = payload.path("commits");
        if (!commits.isArray() || commits.isEmpty()) return null;
        int total = switch (host) {
            case GITLAB -> payload.path("total_commits_count").asInt(commits.size());
            case GITEA -> payload.path("total_commits").asInt(commits.size());
            case GITHUB -> commits.size() >= GITHUB_COMMIT_LIMIT ? Integer.MAX_VALUE : commits.size();
        };
        if (total > commits.size()) return null;
        Set<String> paths = new HashSet<>();
        for (JsonNode commit : commits) {
            for (String list : new String[] {"added", "modified", "removed"}) {
                for (JsonNode path : commit.path(list)) {
                    if (path.isTextual()) paths.add(path.textValue());
                }
            }
        }
        return paths;
    }

    private static String text(JsonNode payload, String field) {
        JsonNode v = payload.get(field);
        return v != null && v.isTextual() && !v.textValue().isEmpty() ? v.textValue() : null;
    }
}
