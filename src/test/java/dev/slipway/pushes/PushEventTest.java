package dev.slipway.pushes;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.core.Json;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The hosts' documented push payloads (trimmed to the fields Slipway reads, plus a few it ignores). */
class PushEventTest {
    static final String SHA = "6113728f27ae82c7b1a177c8d03f9e96e0adf246";

    static JsonNode json(String text) {
        try {
            return Json.MAPPER.readTree(text);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    static String github(String ref, String after, List<String> modified) {
        return """
                {"ref":"%s","before":"0000000000000000000000000000000000000001","after":"%s","created":false,"deleted":false,
                 "forced":false,"compare":"https://github.com/acme/web/compare/a...b",
                 "commits":[{"id":"%s","message":"change","added":[],"removed":[],"modified":%s}],
                 "repository":{"full_name":"acme/web"},"pusher":{"name":"octocat"}}"""
                .formatted(ref, after, after, Json.write(modified));
    }

    static String gitlab(String ref, String after, List<String> added, int total) {
        return """
                {"object_kind":"push","event_name":"push","before":"95790bf891e76fee5e1747ab589903a6a1f80f22","after":"%s",
                 "ref":"%s","checkout_sha":"%s","user_username":"jsmith","project_id":15,
                 "commits":[{"id":"%s","message":"Update","added":%s,"modified":[],"removed":[]}],
                 "total_commits_count":%d,"repository":{"name":"web"}}"""
                .formatted(after, ref, after, after, Json.write(added), total);
    }

    static String gitea(String ref, String after, List<String> removed, int total) {
        return """
                {"ref":"%s","before":"28e1879d029cb852e4844d9c718537df08844e03","after":"%s",
                 "compare_url":"http://localhost:3000/acme/web/compare/a...b",
                 "commits":[{"id":"%s","message":"x","added":[],"removed":%s,"modified":[]}],"total_commits":%d,
                 "repository":{"full_name":"acme/web"},"pusher":{"login":"gitea"}}"""
                .formatted(ref, after, after, Json.write(removed), total);
    }

    @Test
    void aBranchPushOfEachHostGivesItsBranchCommitAndChangedPaths() {
        PushEvent g = PushEvent.parse(GitHost.GITHUB, "push", json(github("refs/heads/main", SHA, List.of("site/index.html"))));
        assertThat(g.kind()).isEqualTo(PushEvent.Kind.BRANCH);
        assertThat(g.branch()).isEqualTo("main");
        assertThat(g.after()).isEqualTo(SHA);
        assertThat(g.changed()).containsExactly("site/index.html");
        PushEvent l = PushEvent.parse(GitHost.GITLAB, "Push Hook", json(gitlab("refs/heads/feature/x", SHA, List.of("a.go"), 1)));
        assertThat(l.branch()).isEqualTo("feature/x");
        assertThat(l.changed()).containsExactly("a.go");
        PushEvent t = PushEvent.parse(GitHost.GITEA, "push", json(gitea("refs/heads/main", SHA, List.of("old.txt"), 1)));
        assertThat(t.changed()).containsExactly("old.txt");
    }

    @Test
    void aPayloadThatListsOnlySomeCommitsLeavesTheChangedPathsUnknown() {
        assertThat(PushEvent.parse(GitHost.GITLAB, "Push Hook", json(gitlab("refs/heads/main", SHA, List.of("a"), 30))).changed()).isNull();
        assertThat(PushEvent.parse(GitHost.GITEA, "push", json(gitea("refs/heads/main", SHA, List.of("a"), 16))).changed()).isNull();
        String noCommits = github("refs/heads/main", SHA, List.of()).replaceAll("\"commits\":\\[.*?\\}\\]", "\"commits\":[]");
        assertThat(PushEvent.parse(GitHost.GITHUB, "push", json(noCommits)).changed()).isNull();
    }

    @Test
    void tagsDeletionsPingsAndOtherEventsAreToldApart() {
        assertThat(PushEvent.parse(GitHost.GITHUB, "push", json(github("refs/tags/v1.0", SHA, List.of()))).kind()).isEqualTo(PushEvent.Kind.TAG);
        assertThat(PushEvent.parse(GitHost.GITLAB, "Tag Push Hook", json(gitlab("refs/tags/v1", SHA, List.of(), 0))).kind())
                .isEqualTo(PushEvent.Kind.TAG);
        assertThat(PushEvent.parse(GitHost.GITHUB, "push", json(github("refs/heads/main", "0".repeat(40), List.of()))).kind())
                .isEqualTo(PushEvent.Kind.DELETED);
        assertThat(PushEvent.parse(GitHost.GITHUB, "ping", json("{\"zen\":\"Keep it logically awesome.\",\"hook_id\":1}")).kind())
                .isEqualTo(PushEvent.Kind.PING);
        assertThat(PushEvent.parse(GitHost.GITHUB, "pull_request", json("{\"action\":\"edited\"}")).kind()).isEqualTo(PushEvent.Kind.OTHER);
        assertThat(PushEvent.parse(GitHost.GITLAB, "Merge Request Hook", json("{\"object_kind\":\"merge_request\"}")).kind())
                .isEqualTo(PushEvent.Kind.OTHER);
    }

    @Test
    void aPushWithoutARefOrWithAnAfterThatIsNoShaIsRefused() {
        assertThatThrownBy(() -> PushEvent.parse(GitHost.GITHUB, "push", json("{\"after\":\"" + SHA + "\"}")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no ref");
        assertThatThrownBy(() -> PushEvent.parse(GitHost.GITHUB, "push", json(github("refs/heads/main", "$(id)", List.of()))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a commit sha");
        assertThatThrownBy(() -> PushEvent.parse(GitHost.GITHUB, "push", json("{\"ref\":\"refs/heads/main\",\"after\":5}")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no after");
    }

    static String githubPullRequest(String action, String branch, String sha, String headRepo) {
        return """
                {"action":"%s","number":7,"pull_request":{"number":7,"state":"open","title":"Login",
                 "head":{"ref":"%s","sha":"%s","repo":{"full_name":"%s"}},
                 "base":{"ref":"main","sha":"95790bf891e76fee5e1747ab589903a6a1f80f22","repo":{"full_name":"acme/web"}}},
                 "repository":{"full_name":"acme/web"},"sender":{"login":"octocat"}}"""
                .formatted(action, branch, sha, headRepo);
    }

    static String gitlabMergeRequest(String action, String branch, String sha, int sourceProject, boolean newCommits) {
        return """
                {"object_kind":"merge_request","event_type":"merge_request","project":{"id":15},
                 "object_attributes":{"iid":3,"action":"%s","source_branch":"%s","target_branch":"main",
                  "source_project_id":%d,"target_project_id":15,%s"last_commit":{"id":"%s","message":"x"}}}"""
                .formatted(action, branch, sourceProject, newCommits ? "\"oldrev\":\"95790bf891e76fee5e1747ab589903a6a1f80f22\"," : "", sha);
    }

    @Test
    void pullAndMergeRequestsGiveTheirHeadBranchAndCommitAndWhetherTheyComeFromAFork() {
        PushEvent opened = PushEvent.parse(GitHost.GITHUB, "pull_request", json(githubPullRequest("opened", "feature/x", SHA, "acme/web")));
        assertThat(opened.kind()).isEqualTo(PushEvent.Kind.PULL_REQUEST);
        assertThat(opened.branch()).isEqualTo("feature/x");
        assertThat(opened.after()).isEqualTo(SHA);
        assertThat(opened.fork()).isFalse();
        assertThat(PushEvent.parse(GitHost.GITHUB, "pull_request", json(githubPullRequest("synchronize", "f", SHA, "evil/web"))).fork()).isTrue();
        assertThat(PushEvent.parse(GitHost.GITEA, "pull_request", json(githubPullRequest("synchronized", "f", SHA, "acme/web"))).kind())
                .isEqualTo(PushEvent.Kind.PULL_REQUEST);
        assertThat(PushEvent.parse(GitHost.GITHUB, "pull_request", json(githubPullRequest("closed", "f", SHA, "acme/web"))).kind())
                .isEqualTo(PushEvent.Kind.PULL_REQUEST_CLOSED);
        assertThat(PushEvent.parse(GitHost.GITHUB, "pull_request", json(githubPullRequest("labeled", "f", SHA, "acme/web"))).kind())
                .isEqualTo(PushEvent.Kind.OTHER);
        PushEvent mr = PushEvent.parse(GitHost.GITLAB, "Merge Request Hook", json(gitlabMergeRequest("update", "fix", SHA, 15, true)));
        assertThat(mr.kind()).isEqualTo(PushEvent.Kind.PULL_REQUEST);
        assertThat(mr.branch()).isEqualTo("fix");
        assertThat(PushEvent.parse(GitHost.GITLAB, "Merge Request Hook", json(gitlabMergeRequest("update", "fix", SHA, 15, false))).kind())
                .as("an update without new commits").isEqualTo(PushEvent.Kind.OTHER);
        assertThat(PushEvent.parse(GitHost.GITLAB, "Merge Request Hook", json(gitlabMergeRequest("open", "fix", SHA, 99, false))).fork()).isTrue();
        assertThat(PushEvent.parse(GitHost.GITLAB, "Merge Request Hook", json(gitlabMergeRequest("merge", "fix", SHA, 15, false))).kind())
                .isEqualTo(PushEvent.Kind.PULL_REQUEST_CLOSED);
        assertThatThrownBy(() -> PushEvent.parse(GitHost.GITHUB, "pull_request", json(githubPullRequest("opened", "f", "$(id)", "acme/web"))))
                .hasMessageContaining("not a commit sha");
    }

    @Test
    void anAnnotatedTagNamesItsCommitThroughHeadCommitOrCheckoutSha() {
        String tagObject = "7".repeat(40);
        String github = github("refs/tags/v2", tagObject, List.of()).replaceFirst("\\{\"ref\"", "{\"head_commit\":{\"id\":\"" + SHA + "\"},\"ref\"");
        assertThat(PushEvent.parse(GitHost.GITHUB, "push", json(github)).after()).isEqualTo(SHA);
        String gitlab = gitlab("refs/tags/v2", tagObject, List.of(), 0).replace("\"checkout_sha\":\"" + tagObject, "\"checkout_sha\":\"" + SHA);
        assertThat(PushEvent.parse(GitHost.GITLAB, "Tag Push Hook", json(gitlab)).after()).isEqualTo(SHA);
        assertThat(PushEvent.parse(GitHost.GITEA, "push", json(github("refs/tags/v2", SHA, List.of()))).after())
                .as("a lightweight tag: after is the commit").isEqualTo(SHA);
    }
}
