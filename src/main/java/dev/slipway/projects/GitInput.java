package dev.slipway.projects;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.slipway.api.Body;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A request's {@code git_credentials}, {@code watch_paths}, {@code deploy_on_push} and {@code commit_statuses}, for git
 * sources only. {@code git_credentials} is
 * {@code {"token": "…", "username": "…"}} (HTTPS basic auth; the user name optional) or {@code {"type": "ssh"}}
 * (the server makes a deploy key); {@code null} removes the project's credentials.
 *
 * @param credentialsGiven whether the request names {@code git_credentials} at all
 * @param credentials      the credentials to keep, or null to remove them
 * @param watchPaths       the watch paths to keep (empty: none), or null when the request does not name them
 * @param deployOnPush     {@code branch} or {@code tags}, or null when the request does not name it
 * @param commitStatuses   whether deployments are reported as commit statuses, or null when the request does not say
 */
public record GitInput(boolean credentialsGiven, Credentials credentials, List<String> watchPaths, String deployOnPush,
                       Boolean commitStatuses) {
    public static final GitInput NONE = new GitInput(false, null, null, null, null);
    /** What a push deploys: pushes to the project's branch (the default), or pushed tags. */
    public static final Set<String> DEPLOY_ON_PUSH = Set.of("branch", "tags");
    private static final Set<String> FIELDS = Set.of("type", "token", "username");
    private static final Pattern PRINTABLE = Pattern.compile("[\\x21-\\x7e]+");
    private static final Pattern USER = Pattern.compile("[\\x20-\\x39\\x3b-\\x7e]+"); // printable, no ':'

    /** @param type {@code token} or {@code ssh}; a token's {@code token} (and optional user name), nothing for ssh */
    public record Credentials(String type, String username, String token) {
        public static final String TOKEN = "token";
        public static final String SSH = "ssh";

        @Override
        public String toString() {
            return "Credentials[type=" + type + ", username=" + username + ", token=" + (token == null ? null : "***") + "]";
        }
    }

    public boolean any() {
        return credentialsGiven || watchPaths != null || deployOnPush != null || commitStatuses != null;
    }

    /** @param source the project's source: these fields are refused for a zip or an image */
    public static GitInput read(Body body, String source) {
        boolean git = source == null || ProjectInput.GIT_SOURCES.contains(source);
        boolean given = body.node().has("git_credentials");
        if (!git) {
            for (String field : List.of("git_credentials", "watch_paths", "deploy_on_push", "commit_statuses")) {
                if (body.has(field)) body.problem(field, "is only for git sources (github, gitlab, bitbucket)");
            }
            return NONE;
        }
        return new GitInput(given, given ? credentials(body) : null, watchPaths(body), body.oneOf("deploy_on_push", false, DEPLOY_ON_PUSH),
                body.bool("commit_statuses"));
    }

    private static Credentials credentials(Body body) {
        ObjectNode node = body.object("git_credentials", false);
        if (node == null) return null;
        for (var it = node.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!FIELDS.contains(f)) body.problem("git_credentials." + f, "is not a field of git_credentials");
        }
        JsonNode typeNode = node.get("type");
        String type = typeNode == null || typeNode.isNull() ? Credentials.TOKEN : typeNode.asText();
        boolean textual = typeNode == null || typeNode.isNull() || typeNode.isTextual();
        if (!textual || !Set.of(Credentials.TOKEN, Credentials.SSH).contains(type)) {
            body.problem("git_credentials.type", "must be token or ssh");
            return null;
        }
        if (Credentials.SSH.equals(type)) {
            if (node.has("token") || node.has("username")) {
                body.problem("git_credentials", "an ssh deploy key is made by the server: give no token or username with it");
            }
            return new Credentials(Credentials.SSH, null, null);
        }
        String token = text(node, "token", body, 4096, PRINTABLE, true);
        String username = text(node, "username", body, 200, USER, false);
        return token == null ? null : new Credentials(Credentials.TOKEN, username, token);
    }

    private static String text(ObjectNode node, String field, Body body, int max, Pattern allowed, boolean required) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            if (required) body.problem("git_credentials." + field, "is required");
            return null;
        }
        if (!v.isTextual() || v.textValue().length() > max || !allowed.matcher(v.textValue()).matches()) {
            body.problem("git_credentials." + field, "must be a string of 1 to " + max + " printable characters"
                    + ("username".equals(field) ? " without ':'" : " without spaces"));
            return null;
        }
        return v.textValue();
    }

    private static List<String> watchPaths(Body body) {
        JsonNode v = body.node().get("watch_paths");
        if (v == null) return null;
        if (v.isNull()) return List.of();
        if (!v.isArray() || v.size() > WatchPaths.MAX) {
            body.problem("watch_paths", "must be an array of at most " + WatchPaths.MAX + " globs");
            return null;
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < v.size(); i++) {
            JsonNode item = v.get(i);
            if (!item.isTextual()) {
                body.problem("watch_paths[" + i + "]", "must be a string");
                continue;
            }
            var problem = WatchPaths.problem(item.textValue());
            if (problem.isPresent()) body.problem("watch_paths[" + i + "]", problem.get());
            else if (!out.contains(item.textValue())) out.add(item.textValue());
        }
        return out;
    }
}
