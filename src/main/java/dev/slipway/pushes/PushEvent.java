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
record PushEvent(Kind kind, String ref, String after, Set<String> changed) {
    enum Kind {
        /** A branch moved to {@code after}. */
        BRANCH,
        /** A tag was pushed. */
        TAG,
        /** A branch or tag was deleted. */
        DELETED,
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
            return new PushEvent(Kind.TAG, ref, after, null);
        }
        return new PushEvent(Kind.BRANCH, ref, after, changed(host, payload));
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
