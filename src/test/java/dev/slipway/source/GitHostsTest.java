package dev.slipway.source;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GitHostsTest {
    @Test
    void defaultsArePublicHosts() {
        GitHosts hosts = GitHosts.parse(null);
        assertThat(hosts.cloneUrl("github", "acme/web")).isEqualTo("https://github.com/acme/web.git");
        assertThat(hosts.cloneUrl("gitlab", "acme/web")).isEqualTo("https://gitlab.com/acme/web.git");
        assertThat(hosts.cloneUrl("bitbucket", "acme/web")).isEqualTo("https://bitbucket.org/acme/web.git");
        assertThat(hosts.kinds()).containsExactly("github", "gitlab", "bitbucket");
        assertThat(hosts.supports("zip")).isFalse();
        assertThat(hosts.supports(null)).isFalse();
        assertThat(GitHosts.parse("  ").toString()).isEqualTo(GitHosts.defaults().toString());
    }

    @Test
    void overridesReplaceOnlyTheirKind() {
        GitHosts hosts = GitHosts.parse("github=http://127.0.0.1:3000/, gitlab=https://git.example.com/mirror");
        assertThat(hosts.cloneUrl("github", "acme/web")).isEqualTo("http://127.0.0.1:3000/acme/web.git");
        assertThat(hosts.cloneUrl("gitlab", "a/b")).isEqualTo("https://git.example.com/mirror/a/b.git");
        assertThat(hosts.cloneUrl("bitbucket", "a/b")).isEqualTo("https://bitbucket.org/a/b.git");
        assertThat(GitHosts.parse("GitHub=git://127.0.0.1:9418").cloneUrl("github", "a/b"))
                .isEqualTo("git://127.0.0.1:9418/a/b.git");
    }

    @Test
    void badSyntaxIsRefusedWithTheReason() {
        assertThatThrownBy(() -> GitHosts.parse("github")).hasMessageContaining("expected kind=url");
        assertThatThrownBy(() -> GitHosts.parse("github=http://a,")).hasMessageContaining("expected kind=url");
        assertThatThrownBy(() -> GitHosts.parse("=http://a")).hasMessageContaining("expected kind=url");
        assertThatThrownBy(() -> GitHosts.parse("svn=http://a")).hasMessageContaining("unknown host kind 'svn'");
        assertThatThrownBy(() -> GitHosts.parse("github=http://a,github=http://b")).hasMessageContaining("given twice");
        assertThatThrownBy(() -> GitHosts.parse("github=ftp://a")).hasMessageContaining("http, https or git URL");
        assertThatThrownBy(() -> GitHosts.parse("github=127.0.0.1:3000")).hasMessageContaining("http, https or git URL");
        assertThatThrownBy(() -> GitHosts.parse("github=http://a?x=1")).hasMessageContaining("http, https or git URL");
        assertThatThrownBy(() -> GitHosts.parse("github=http://a b")).hasMessageContaining("http, https or git URL");
    }

    @Test
    void credentialsNeverShow() {
        GitHosts hosts = GitHosts.parse("gitlab=https://deploy:s3cret@git.example.com");
        assertThat(hosts.cloneUrl("gitlab", "a/b")).isEqualTo("https://deploy:s3cret@git.example.com/a/b.git");
        assertThat(hosts.displayBase("gitlab")).isEqualTo("https://git.example.com");
        assertThat(hosts.toString()).doesNotContain("s3cret");
        assertThatThrownBy(() -> GitHosts.parse("gitlab=ftp://deploy:s3cret@git.example.com"))
                .hasMessageNotContaining("s3cret");
    }

    @Test
    void sshBasesDefaultToThePublicHostsAndAreOverriddenApart() {
        GitHosts hosts = GitHosts.defaults();
        assertThat(hosts.sshCloneUrl("github", "acme/web")).isEqualTo("ssh://git@github.com/acme/web.git");
        GitHosts mine = GitHosts.parse("gitlab=https://git.example.com").withSsh("gitlab=ssh://git@git.example.com:2222/");
        assertThat(mine.sshCloneUrl("gitlab", "a/b")).isEqualTo("ssh://git@git.example.com:2222/a/b.git");
        assertThat(mine.sshCloneUrl("github", "a/b")).isEqualTo("ssh://git@github.com/a/b.git");
        assertThat(mine.withHttps("github=http://127.0.0.1:3000").sshCloneUrl("gitlab", "a/b"))
                .as("new clone bases keep the SSH bases").isEqualTo("ssh://git@git.example.com:2222/a/b.git");
        assertThatThrownBy(() -> hosts.withSsh("github=https://github.com")).hasMessageContaining("SLIPWAY_GIT_SSH_HOSTS")
                .hasMessageContaining("ssh://user@host");
        assertThatThrownBy(() -> hosts.withSsh("svn=ssh://git@a")).hasMessageContaining("unknown host kind");
    }

    @Test
    void apiBasesDefaultToThePublicApisAndSurviveOtherOverrides() {
        GitHosts hosts = GitHosts.defaults();
        assertThat(hosts.apiBase("github")).isEqualTo("https://api.github.com");
        assertThat(hosts.apiBase("gitlab")).isEqualTo("https://gitlab.com/api/v4");
        GitHosts gitea = hosts.withApis("github=https://git.example.com/api/v1/").withHttps("github=https://git.example.com")
                .withSsh("github=ssh://git@git.example.com");
        assertThat(gitea.apiBase("github")).isEqualTo("https://git.example.com/api/v1");
        assertThat(gitea.apiBase("bitbucket")).isEqualTo("https://api.bitbucket.org/2.0");
        assertThatThrownBy(() -> hosts.withApis("github=git://git.example.com")).hasMessageContaining("SLIPWAY_GIT_APIS")
                .hasMessageContaining("http or https");
    }
}
