package dev.slipway.testing;

import dev.slipway.logs.LogSink;
import dev.slipway.runtime.Instance;
import dev.slipway.runtime.TestApps;
import dev.slipway.store.Dialect;

import java.util.Map;
import java.util.concurrent.CountDownLatch;

/** A JVM of its own holding a test server with one running app, until it is interrupted ({@link TestServerAtExitTest}). */
public final class HeldServer {
    private HeldServer() {}

    public static void main(String[] args) throws InterruptedException {
        TestServer server = TestServer.start(Dialect.H2);
        Instance app = server.startApp(TestApps.spec("held", Map.of()), LogSink.DISCARD);
        System.out.println("app-pid " + app.pid());
        new CountDownLatch(1).await();
    }
}
