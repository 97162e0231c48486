package dev.slipway.pushes;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;

class GitHostTest {
    /** Headers looked up case-insensitively, as HTTP's are. */
    private static UnaryOperator<String> headers(Map<String, String> given) {
        Map<String, String> map = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        map.putAll(given);
        return map::get;
    }

    @Test
    void githubsDocumentedExampleVerifiesAndAnyChangeDoesNot() {
        // the example of GitHub's "Validating webhook deliveries"
        String secret = "It's a Secret to Everybody";
        byte[] body = "Hello, World!".getBytes(StandardCharsets.UTF_8);
        String proof = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";
        assertThat(GitHost.GITHUB.verify(proof, secret, body)).isTrue();
        assertThat(GitHost.GITHUB.verify(proof.toUpperCase().replace("SHA256=", "sha256="), secret, body)).isTrue();
        assertThat(GitHost.GITHUB.verify(proof, secret + "x", body)).isFalse();
        assertThat(GitHost.GITHUB.verify(proof, secret, "Hello, World?".getBytes(StandardCharsets.UTF_8))).isFalse();
        assertThat(GitHost.GITHUB.verify(proof.substring(7), secret, body)).as("without its sha256= prefix").isFalse();
        assertThat(GitHost.GITHUB.verify("", secret, body)).isFalse();
    }

    @Test
    void giteaSignsTheSameHmacWithoutAPrefixAndGitlabSendsTheSecret() {
        byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
        String hmac = GitHost.hmac("s3cret", body);
        assertThat(GitHost.GITEA.verify(hmac, "s3cret", body)).isTrue();
        assertThat(GitHost.GITEA.verify("sha256=" + hmac, "s3cret", body)).isFalse();
        assertThat(GitHost.GITLAB.verify("s3cret", "s3cret", body)).isTrue();
        assertThat(GitHost.GITLAB.verify("s3cre", "s3cret", body)).isFalse();
        assertThat(GitHost.GITLAB.verify(hmac, "s3cret", body)).isFalse();
    }

    @Test
    void theHostIsToldByItsProofHeaderGiteaBeforeTheGithubHeadersItAlsoSends() {
        assertThat(GitHost.of(headers(Map.of("X-Hub-Signature-256", "sha256=00", "X-GitHub-Event", "push")))).contains(GitHost.GITHUB);
        assertThat(GitHost.of(headers(Map.of("x-gitlab-token", "t")))).contains(GitHost.GITLAB);
        assertThat(GitHost.of(headers(Map.of("X-Gitea-Signature", "00", "X-Hub-Signature-256", "sha256=00")))).contains(GitHost.GITEA);
        assertThat(GitHost.of(headers(Map.of("X-Forgejo-Signature", "00")))).contains(GitHost.GITEA);
        assertThat(GitHost.of(headers(Map.of("X-Hub-Signature", "sha1=00")))).as("GitHub's SHA-1 header alone").isEmpty();
        assertThat(GitHost.of(headers(Map.of()))).isEmpty();
        assertThat(GitHost.GITLAB.delivery(headers(Map.of("Idempotency-Key", "k1")))).contains("k1");
        assertThat(GitHost.GITEA.event(headers(Map.of("X-Gitea-Event", "push")))).contains("push");
    }
}
