package dev.slipway.statuses;

import dev.slipway.core.Json;
import dev.slipway.source.GitCredentials;

import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The commit status API of each {@code source} kind, as its host documents it. Gitea and Forgejo serve GitHub's
 * shape under {@code /api/v1}, so a self-hosted one is the {@code github} kind with that API base.
 */
enum StatusApi {
    /** {@code POST /repos/{owner}/{repo}/statuses/{sha}}; states pending, success, failure; description at most 140. */
    GITHUB {
        @Override
        Call call(String base, String repo, String sha, CommitStatus s, GitCredentials.Token token) {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("state", switch (s.state()) {
                case PENDING, RUNNING -> "pending";
                case SUCCESS -> "success";
                case FAILURE -> "failure";
            });
            body.put("target_url", s.targetUrl());
            body.put("description", clip(s.description(), 140));
            body.put("context", s.context());
            return new Call(URI.create(base + "/repos/" + repo + "/statuses/" + sha), Map.of(
                    "Authorization", "token " + token.token(),
                    "Accept", "application/vnd.github+json",
                    "X-GitHub-Api-Version", "2022-11-28"), Json.write(body));
        }
    },
    /** {@code POST /projects/{url-encoded path}/statuses/{sha}} with {@code PRIVATE-TOKEN}; states pending, running, success, failed. */
    GITLAB {
        @Override
        Call call(String base, String repo, String sha, CommitStatus s, GitCredentials.Token token) {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("state", switch (s.state()) {
                case PENDING -> "pending";
                case RUNNING -> "running";
                case SUCCESS -> "success";
                case FAILURE -> "failed";
            });
            body.put("name", s.context());
            body.put("target_url", s.targetUrl());
            body.put("description", clip(s.description(), 255));
            return new Call(URI.create(base + "/projects/" + URLEncoder.encode(repo, StandardCharsets.UTF_8) + "/statuses/" + sha),
                    Map.of("PRIVATE-TOKEN", token.token()), Json.write(body));
        }
    },
    /**
     * {@code POST /repositories/{workspace}/{repo}/commit/{sha}/statuses/build}; states INPROGRESS, SUCCESSFUL, FAILED;
     * an access token as a bearer, or an app password with its user name as basic auth.
     */
    BITBUCKET {
        @Override
        Call call(String base, String repo, String sha, CommitStatus s, GitCredentials.Token token) {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("key", s.context());
            body.put("state", switch (s.state()) {
                case PENDING, RUNNING -> "INPROGRESS";
                case SUCCESS -> "SUCCESSFUL";
                case FAILURE -> "FAILED";
            });
            body.put("name", s.context());
            body.put("url", s.targetUrl());
            body.put("description", clip(s.description(), 255));
            String auth = token.username() == null ? "Bearer " + token.token()
                    : "Basic " + Base64.getEncoder().encodeToString((token.username() + ":" + token.token()).getBytes(StandardCharsets.UTF_8));
            return new Call(URI.create(base + "/repositories/" + repo + "/commit/" + sha + "/statuses/build"),
                    Map.of("Authorization", auth), Json.write(body));
        }
    };

    /** One request: where, its headers (the token among them: never log them) and its JSON body. */
    record Call(URI uri, Map<String, String> headers, String body) {
        @Override
        public String toString() {
            return "Call[" + uri + "]";
        }
    }

    abstract Call call(String base, String repo, String sha, CommitStatus s, GitCredentials.Token token);

    /** The API of a {@code source} kind; null for one without commit statuses. */
    static StatusApi of(String source) {
        return switch (source) {
            case "github" -> GITHUB;
            case "gitlab" -> GITLAB;
            case "bitbucket" -> BITBUCKET;
            default -> null;
        };
    }

    private static String clip(String text, int max) {
        return text.length() <= max ? text : text.substring(0, max - 1) + "…";
    }
}
