package dev.slipway.testing;

import dev.slipway.accounts.Tier;
import dev.slipway.config.ServerConfig;
import dev.slipway.server.Slipway;
import dev.slipway.store.Dialect;
import org.junit.jupiter.api.extension.AfterClassTemplateInvocationCallback;
import org.junit.jupiter.api.extension.BeforeClassTemplateInvocationCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.function.UnaryOperator;

/**
 * One {@link TestServer} for each store kind of an {@link EachStore} class: started before the class's tests
 * on that kind, closed after them. With {@link #withGit}, a {@link GitServer} per kind too, whose hosts the
 * server fetches from. Register it on a static field; it reads like the server it holds:
 * <pre>{@code
 * @EachStore
 * class SomeTest {
 *     @RegisterExtension
 *     static final ServerPerStore server = ServerPerStore.start(c -> c.uploadLimit(1024));
 *
 *     @Test
 *     void something() {
 *         var tenant = server.tenant(Tier.TEAM);
 *         ...
 *     }
 * }
 * }</pre>
 */
public final class ServerPerStore implements BeforeClassTemplateInvocationCallback, AfterClassTemplateInvocationCallback {
    private final boolean git;
    private final UnaryOperator<ServerConfig.Builder> customize;
    private GitServer gitServer;
    private TestServer server;

    private ServerPerStore(boolean git, UnaryOperator<ServerConfig.Builder> customize) {
        this.git = git;
        this.customize = customize;
    }

    /** A server with the test defaults of {@link TestServer}. */
    public static ServerPerStore start() {
        return new ServerPerStore(false, c -> c);
    }

    /** A server with settings of the test's. */
    public static ServerPerStore start(UnaryOperator<ServerConfig.Builder> customize) {
        return new ServerPerStore(false, customize);
    }

    /** A {@link GitServer} and a server that fetches from it. */
    public static ServerPerStore withGit() {
        return new ServerPerStore(true, c -> c);
    }

    /** A {@link GitServer} and a server that fetches from it, with settings of the test's. */
    public static ServerPerStore withGit(UnaryOperator<ServerConfig.Builder> customize) {
        return new ServerPerStore(true, customize);
    }

    @Override
    public void beforeClassTemplateInvocation(ExtensionContext context) {
        Dialect kind = EachStore.Kinds.of(context);
        if (git) gitServer = GitServer.start();
        try {
            server = TestServer.start(kind, c -> customize.apply(git ? c.gitHosts(gitServer.hosts()) : c));
        } catch (RuntimeException e) {
            if (gitServer != null) gitServer.close();
            gitServer = null;
            throw e;
        }
    }

    @Override
    public void afterClassTemplateInvocation(ExtensionContext context) {
        stop();
    }

    /** Closes the server (and git server) now, for a class that cleans up after them in its {@code @AfterAll}. */
    public void stop() {
        try {
            if (server != null) server.close();
        } finally {
            server = null;
            if (gitServer != null) gitServer.close();
            gitServer = null;
        }
    }

    /** The server of the store kind whose tests run now. */
    public TestServer get() {
        if (server == null) throw new IllegalStateException("no server: register ServerPerStore on a static field of an @EachStore class");
        return server;
    }

    /** The git server; only {@link #withGit} starts one. */
    public GitServer git() {
        if (gitServer == null) throw new IllegalStateException("no git server: use ServerPerStore.withGit()");
        return gitServer;
    }

    public Dialect kind() { return get().store().kind(); }
    public Slipway slipway() { return get().slipway(); }
    public TestStore store() { return get().store(); }
    public String baseUrl() { return get().baseUrl(); }
    public Slipway startPeer() { return get().startPeer(); }
    public Http anonymous() { return get().anonymous(); }
    public TestServer.Tenant tenant(Tier tier) { return get().tenant(tier); }
    public TestServer.Tenant tenant(Tier tier, Integer rateLimit) { return get().tenant(tier, rateLimit); }
}
