package dev.slipway.pipeline;

import dev.slipway.accounts.Tier;
import dev.slipway.store.Dialect;
import dev.slipway.testing.GitServer;
import dev.slipway.testing.TestServer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.Map;

/**
 * For the classes that build real apps (slow, so on H2 only): a server whose git host is a git server of
 * its own, and a team tenant's {@link Runs}; started before the class's {@code @BeforeAll} methods.
 */
final class GitDeploys implements BeforeAllCallback, AfterAllCallback {
    private GitServer git;
    private TestServer server;
    private Runs runs;

    @Override
    public void beforeAll(ExtensionContext context) {
        git = GitServer.start();
        server = TestServer.start(Dialect.H2, c -> c.gitHosts(git.hosts()));
        runs = new Runs(server.tenant(Tier.TEAM).http());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        server.close();
        git.close();
    }

    GitServer git() { return git; }
    TestServer server() { return server; }
    Runs runs() { return runs; }

    /** A new repository holding {@code files} on main. */
    void push(String repo, Map<String, byte[]> files) {
        git.createRepo(repo);
        git.commitBytes(repo, "main", files, "the " + repo + " app");
    }
}
