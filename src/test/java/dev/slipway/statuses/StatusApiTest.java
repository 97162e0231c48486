package dev.slipway.statuses;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.core.Json;
import dev.slipway.source.GitCredentials;
import org.junit.jupiter.api.Test;

import java.util.Base64;

import static org.assertj.core.api.Assertions.assertThat;

/** Each host's commit status request as its API documentation gives it: path, authentication, state names, fields. */
class StatusApiTest {
    private static final String SHA = "6dcb09b5b57875f334f61aebed695e2e4193db5e";
    private static final CommitStatus RUNNING = new CommitStatus(CommitStatus.State.RUNNING, "slipway/preview", "Building",
            "https://slipway.example.com/dashboard/deployments/dep_1");
    private static final CommitStatus FAILED = new CommitStatus(CommitStatus.State.FAILURE, "slipway/production", "x".repeat(300),
            "https://slipway.example.com/dashboard/deployments/dep_2");

    static JsonNode json(StatusApi.Call call) throws Exception {
        return Json.MAPPER.readTree(call.body());
    }

    @Test
    void gitHubAndGiteaTakeStateTargetUrlDescriptionAndContextWithATokenHeader() throws Exception {
        StatusApi.Call call = StatusApi.GITHUB.call("https://api.github.com", "octocat/hello-world", SHA, RUNNING,
                new GitCredentials.Token(null, "ghp_secret"));
        assertThat(call.uri()).hasToString("https://api.github.com/repos/octocat/hello-world/statuses/" + SHA);
        assertThat(call.headers()).containsEntry("Authorization", "token ghp_secret")
                .containsEntry("Accept", "application/vnd.github+json").containsEntry("X-GitHub-Api-Version", "2022-11-28");
        JsonNode body = json(call);
        assertThat(body.get("state").asText()).isEqualTo("pending"); // GitHub has no running
        assertThat(body.get("context").asText()).isEqualTo("slipway/preview");
        assertThat(body.get("target_url").asText()).isEqualTo(RUNNING.targetUrl());
        JsonNode failed = json(StatusApi.GITHUB.call("https://gitea.example.com/api/v1", "acme/api", SHA, FAILED,
                new GitCredentials.Token(null, "t")));
        assertThat(failed.get("state").asText()).isEqualTo("failure");
        assertThat(failed.get("description").asText()).hasSize(140); // GitHub refuses a longer one
        assertThat(call.toString()).doesNotContain("ghp_secret");
    }

    @Test
    void gitLabTakesTheUrlEncodedPathAndAPrivateTokenHeaderAndNamesRunningAndFailed() throws Exception {
        StatusApi.Call call = StatusApi.GITLAB.call("https://gitlab.com/api/v4", "group/sub/project", SHA, RUNNING,
                new GitCredentials.Token(null, "glpat-secret"));
        assertThat(call.uri().getRawPath()).isEqualTo("/api/v4/projects/group%2Fsub%2Fproject/statuses/" + SHA);
        assertThat(call.headers()).containsExactlyEntriesOf(java.util.Map.of("PRIVATE-TOKEN", "glpat-secret"));
        JsonNode body = json(call);
        assertThat(body.get("state").asText()).isEqualTo("running");
        assertThat(body.get("name").asText()).isEqualTo("slipway/preview");
        assertThat(json(StatusApi.GITLAB.call("https://gitlab.com/api/v4", "a/b", SHA, FAILED, new GitCredentials.Token(null, "t")))
                .get("state").asText()).isEqualTo("failed");
    }

    @Test
    void bitbucketTakesABuildStatusWithAKeyAndBearerOrBasicAuth() throws Exception {
        StatusApi.Call bearer = StatusApi.BITBUCKET.call("https://api.bitbucket.org/2.0", "team/repo", SHA, RUNNING,
                new GitCredentials.Token(null, "access-token"));
        assertThat(bearer.uri()).hasToString("https://api.bitbucket.org/2.0/repositories/team/repo/commit/" + SHA + "/statuses/build");
        assertThat(bearer.headers()).containsEntry("Authorization", "Bearer access-token");
        JsonNode body = json(bearer);
        assertThat(body.get("state").asText()).isEqualTo("INPROGRESS");
        assertThat(body.get("key").asText()).isEqualTo("slipway/preview");
        assertThat(body.get("url").asText()).isEqualTo(RUNNING.targetUrl());
        StatusApi.Call basic = StatusApi.BITBUCKET.call("https://api.bitbucket.org/2.0", "team/repo", SHA, FAILED,
                new GitCredentials.Token("me", "app-password"));
        assertThat(basic.headers().get("Authorization"))
                .isEqualTo("Basic " + Base64.getEncoder().encodeToString("me:app-password".getBytes()));
        assertThat(json(basic).get("state").asText()).isEqualTo("FAILED");
    }

    @Test
    void onlyGitSourcesHaveAnApi() {
        assertThat(StatusApi.of("github")).isEqualTo(StatusApi.GITHUB);
        assertThat(StatusApi.of("zip")).isNull();
        assertThat(StatusApi.of("image")).isNull();
    }
}
