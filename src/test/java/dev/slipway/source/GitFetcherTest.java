package dev.slipway.source;

import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;
import dev.slipway.testing.GitServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

class GitFetcherTest {
    static GitServer git;
    static GitFetcher fetcher;

    @TempDir
    Path temp;

    @BeforeAll
    static void start() {
        git = GitServer.start();
        fetcher = new GitFetcher(git.hosts(), GitFetcher.Limits.DEFAULTS, Clock.systemUTC());
    }

    @AfterAll
    static void stop() {
        git.close();
    }

    /** A log that keeps its lines. */
    static final class Lines implements LogSink {
        final List<String> lines = new CopyOnWriteArrayList<>();

        @Override
        public void log(Level level, String message) {
            assertThat(level).isEqualTo(Level.INFO);
            lines.add(message);
        }
    }

    private static String newRepo() {
        String name = "acme/web-" + UUID.randomUUID().toString().substring(0, 8);
        git.createRepo(name);
        return name;
    }

    private static SourceException refused(Runnable call, SourceException.Reason reason) {
        SourceException e = catchThrowableOfType(SourceException.class, call::run);
        assertThat(e).as("refused with " + reason).isNotNull();
        assertThat(e.reason()).as(e.getMessage()).isEqualTo(reason);
        assertThat(e.getMessage()).doesNotContain("Exception").doesNotContain("\tat ");
        return e;
    }

    private static int unusedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Test
    void clonesTheHeadOfTheBranchWithoutGitMetadata() throws IOException {
        String repo = newRepo();
        git.commit(repo, "main", Map.of("index.js", "console.log(1)", "run.sh", "#!/bin/sh\necho hi\n"), "first");
        String second = git.commit(repo, "main", Map.of("index.js", "console.log(2)", "README.md", "# web"),
                "Second commit\n\nWith a body.\n");
        Lines log = new Lines();
        Path workspace = temp.resolve("ws");

        FetchedSource source = fetcher.fetch("github", repo, "main", null, workspace, log);

        assertThat(source.dir()).isEqualTo(workspace);
        assertThat(source.commitSha()).isEqualTo(second).hasSize(40);
        assertThat(source.commitMessage()).isEqualTo("Second commit\n\nWith a body.");
        assertThat(source.title()).isEqualTo("Second commit");
        assertThat(source.branch()).isEqualTo("main");
        assertThat(Files.readString(workspace.resolve("index.js"))).isEqualTo("console.log(2)");
        assertThat(Files.readString(workspace.resolve("README.md"))).isEqualTo("# web");
        assertThat(Files.isExecutable(workspace.resolve("run.sh"))).isTrue();
        assertThat(Files.isExecutable(workspace.resolve("index.js"))).isFalse();
        assertThat(workspace.resolve(".git")).doesNotExist();
        try (var files = Files.list(workspace)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("index.js", "run.sh", "README.md");
        }
        assertThat(log.lines).containsExactly("Cloning github " + repo + " (branch main)",
                "Checked out " + second.substring(0, 7) + " 'Second commit'");
    }

    @Test
    void clonesAnOlderCommitByFullOrShortSha() throws IOException {
        String repo = newRepo();
        String first = git.commit(repo, "main", Map.of("app.py", "v1"), "one");
        String second = git.commit(repo, "main", Map.of("app.py", "v2", "extra.txt", "x"), "two");
        git.commit(repo, "main", Map.of("app.py", "v3"), "three");

        FetchedSource full = fetcher.fetch("gitlab", repo, "main", first, temp.resolve("full"), LogSink.DISCARD);
        assertThat(full.commitSha()).isEqualTo(first);
        assertThat(full.commitMessage()).isEqualTo("one");
        assertThat(Files.readString(temp.resolve("full/app.py"))).isEqualTo("v1");
        assertThat(temp.resolve("full/extra.txt")).doesNotExist();

        FetchedSource shortSha = fetcher.fetch("bitbucket", repo, "main", second.substring(0, 7).toUpperCase(),
                temp.resolve("short"), LogSink.DISCARD);
        assertThat(shortSha.commitSha()).isEqualTo(second);
        assertThat(Files.readString(temp.resolve("short/app.py"))).isEqualTo("v2");
        assertThat(temp.resolve("short/.git")).doesNotExist();
    }

    @Test
    void findsACommitOlderThanTheFirstShallowFetch() throws IOException {
        String repo = newRepo();
        String oldest = git.commit(repo, "main", Map.of("n.txt", "0"), "commit 0");
        for (int i = 1; i <= 60; i++) git.commit(repo, "main", Map.of("n.txt", Integer.toString(i)), "commit " + i);

        FetchedSource source = fetcher.fetch("github", repo, "main", oldest.substring(0, 10), temp.resolve("ws"), LogSink.DISCARD);

        assertThat(source.commitSha()).isEqualTo(oldest);
        assertThat(Files.readString(temp.resolve("ws/n.txt"))).isEqualTo("0");
    }

    @Test
    void longMessagesAreCut() {
        String repo = newRepo();
        git.commit(repo, "main", Map.of("a", "a"), "x".repeat(3000));
        FetchedSource source = fetcher.fetch("github", repo, "main", null, temp.resolve("ws"), LogSink.DISCARD);
        assertThat(source.commitMessage()).hasSize(FetchedSource.MAX_MESSAGE);
    }

    @Test
    void unknownRepositoryBranchAndCommitAreSaidPlainly() {
        String repo = newRepo();
        git.commit(repo, "main", Map.of("a", "a"), "main work");
        git.branch(repo, "feature", git.commit(repo, "main", Map.of("b", "b"), "shared"));
        String onFeatureOnly = git.commit(repo, "feature", Map.of("c", "c"), "feature work");
        Path workspace = temp.resolve("ws");

        var noRepo = refused(() -> fetcher.fetch("github", "acme/does-not-exist", "main", null, workspace, LogSink.DISCARD),
                SourceException.Reason.REPO_NOT_FOUND);
        assertThat(noRepo.getMessage()).isEqualTo("Repository github acme/does-not-exist not found, or it is private: give the project git_credentials");
        var noBranch = refused(() -> fetcher.fetch("github", repo, "nope", null, workspace, LogSink.DISCARD),
                SourceException.Reason.BRANCH_NOT_FOUND);
        assertThat(noBranch.getMessage()).isEqualTo("Branch nope not found in github " + repo);
        var noCommit = refused(() -> fetcher.fetch("github", repo, "main", "deadbeef", workspace, LogSink.DISCARD),
                SourceException.Reason.COMMIT_NOT_FOUND);
        assertThat(noCommit.getMessage()).isEqualTo("Commit deadbeef not found on branch main of github " + repo);
        // on the repository, but not reachable from the branch asked for
        refused(() -> fetcher.fetch("github", repo, "main", onFeatureOnly, workspace, LogSink.DISCARD),
                SourceException.Reason.COMMIT_NOT_FOUND);
        assertThat(workspace).doesNotExist();
        // the same commit from its own branch is fine
        assertThat(fetcher.fetch("github", repo, "feature", onFeatureOnly, workspace, LogSink.DISCARD).commitSha())
                .isEqualTo(onFeatureOnly);
    }

    @Test
    void invalidInputIsRefusedBeforeAnyNetworkCall() throws IOException {
        GitHosts nowhere = GitHosts.parse("github=http://127.0.0.1:" + unusedPort());
        GitFetcher offline = new GitFetcher(nowhere, GitFetcher.Limits.DEFAULTS, Clock.systemUTC());
        int before = git.requests();
        Path workspace = temp.resolve("ws");
        for (String repo : new String[]{"acme", "../etc/passwd", "acme/../x", "acme/web;rm -rf", "acme/web/extra", "a/..", ""}) {
            var e = refused(() -> offline.fetch("github", repo, "main", null, workspace, LogSink.DISCARD),
                    SourceException.Reason.INVALID_INPUT);
            assertThat(e.getMessage()).startsWith("Invalid repository name");
            refused(() -> fetcher.resolveHead("github", repo, "main"), SourceException.Reason.INVALID_INPUT);
        }
        for (String branch : new String[]{"", "-x", "a..b", "a b", "x.lock", "refs/../x", "a~1", "a:b", "@", "a//b"}) {
            var e = refused(() -> offline.fetch("github", "acme/web", branch, null, workspace, LogSink.DISCARD),
                    SourceException.Reason.INVALID_INPUT);
            assertThat(e.getMessage()).startsWith("Invalid branch name");
        }
        for (String sha : new String[]{"abc", "xyz1234", "1234567890123456789012345678901234567890a", "-1234567"}) {
            var e = refused(() -> offline.fetch("github", "acme/web", "main", sha, workspace, LogSink.DISCARD),
                    SourceException.Reason.INVALID_INPUT);
            assertThat(e.getMessage()).startsWith("Invalid commit sha");
        }
        var kind = refused(() -> offline.fetch("svn", "acme/web", "main", null, workspace, LogSink.DISCARD),
                SourceException.Reason.INVALID_INPUT);
        assertThat(kind.getMessage()).isEqualTo("Unknown repository host 'svn' (expected one of github, gitlab, bitbucket)");
        assertThat(git.requests()).isEqualTo(before);
        assertThat(workspace).doesNotExist();
        // and the same valid request does reach the network (so the above was not refused by luck)
        refused(() -> offline.fetch("github", "acme/web", "main", null, workspace, LogSink.DISCARD),
                SourceException.Reason.HOST_UNREACHABLE);
    }

    @Test
    void resolvesTheHeadOfABranch() {
        String repo = newRepo();
        String first = git.commit(repo, "main", Map.of("a", "1"), "one");
        assertThat(fetcher.resolveHead("github", repo, "main")).isEqualTo(first);
        String second = git.commit(repo, "main", Map.of("a", "2"), "two");
        assertThat(fetcher.resolveHead("github", repo, "main")).isEqualTo(second);
        refused(() -> fetcher.resolveHead("github", repo, "develop"), SourceException.Reason.BRANCH_NOT_FOUND);
        refused(() -> fetcher.resolveHead("github", "acme/missing", "main"), SourceException.Reason.REPO_NOT_FOUND);
    }

    @Test
    void aTreeOverTheSizeLimitIsRefusedAndCleanedUp() {
        String repo = newRepo();
        String small = git.commit(repo, "main", Map.of("small.txt", "x".repeat(600)), "small");
        git.commit(repo, "main", Map.of("big.txt", "y".repeat(600)), "big");
        GitFetcher limited = new GitFetcher(git.hosts(), new GitFetcher.Limits(Duration.ofMinutes(1), 1000), Clock.systemUTC());

        var e = refused(() -> limited.fetch("github", repo, "main", null, temp.resolve("ws"), LogSink.DISCARD),
                SourceException.Reason.TOO_LARGE);
        assertThat(e.getMessage()).contains("larger than the limit of 1000 bytes");
        assertThat(temp.resolve("ws")).doesNotExist();
        // the older commit fits
        assertThat(limited.fetch("github", repo, "main", small, temp.resolve("ok"), LogSink.DISCARD).commitSha())
                .isEqualTo(small);
    }

    @Test
    void unreachableHostIsSaidWithoutCredentials() throws IOException {
        int port = unusedPort();
        GitFetcher offline = new GitFetcher(GitHosts.parse("gitlab=http://deploy:s3cret@127.0.0.1:" + port),
                GitFetcher.Limits.DEFAULTS, Clock.systemUTC());
        var e = refused(() -> offline.fetch("gitlab", "acme/web", "main", null, temp.resolve("ws"), LogSink.DISCARD),
                SourceException.Reason.HOST_UNREACHABLE);
        assertThat(e.getMessage()).isEqualTo("Cannot reach gitlab at http://127.0.0.1:" + port).doesNotContain("s3cret");
        refused(() -> offline.resolveHead("gitlab", "acme/web", "main"), SourceException.Reason.HOST_UNREACHABLE);
        assertThat(temp.resolve("ws")).doesNotExist();
    }

    @Test
    void aHostThatNeverAnswersTimesOut() throws IOException {
        // the kernel completes connections to a listening socket nobody accepts from; no answer ever comes
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            GitFetcher impatient = new GitFetcher(GitHosts.parse("github=http://127.0.0.1:" + silent.getLocalPort()),
                    new GitFetcher.Limits(Duration.ofSeconds(1), GitFetcher.Limits.DEFAULTS.maxTreeBytes()), Clock.systemUTC());
            Instant started = Instant.now();
            var e = refused(() -> impatient.fetch("github", "acme/web", "main", null, temp.resolve("ws"), LogSink.DISCARD),
                    SourceException.Reason.TIMEOUT);
            assertThat(e.getMessage()).isEqualTo("Fetching github acme/web timed out after 1 s");
            assertThat(Duration.between(started, Instant.now())).isLessThan(Duration.ofSeconds(10));
        }
    }

    @Test
    void aNonEmptyWorkspaceIsAProgrammingError() throws IOException {
        String repo = newRepo();
        git.commit(repo, "main", Map.of("a", "1"), "one");
        Path workspace = Files.createDirectories(temp.resolve("ws"));
        Files.writeString(workspace.resolve("leftover"), "x");
        assertThatThrownBy(() -> fetcher.fetch("github", repo, "main", null, workspace, LogSink.DISCARD))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not empty");
        assertThat(workspace.resolve("leftover")).exists();
    }
}
