package dev.slipway.router;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Wake-on-request: what serves an address that has no running app behind it. The apps listener asks
 * when a Host has no route, or a route to a port no instance listens on any more (a retired or
 * stopped app); the answer may take as long as an app start.
 */
@FunctionalInterface
public interface Waker {
    /** The answer for the address: a target to serve it from, or which error page. */
    sealed interface Wake {
        /** Serve the request from this target (the app was started, or found running). */
        record Serve(Target target) implements Wake {}

        /** Nothing is known at this address, or it cannot run (failed, never built): the 404 page. */
        record NoApp() implements Wake {}

        /** A deployment that cannot be started any more (its build was pruned) or whose start failed: the 502 page. */
        record Down() implements Wake {}

        /** Its last start failed and no other is tried before {@code retryAfter}: the 503 page with Retry-After. */
        record Failing(Duration retryAfter) implements Wake {}
    }

    Waker NONE = host -> CompletableFuture.completedFuture(new Wake.NoApp());

    /** Completes with the answer; never completes exceptionally on purpose (a failure is treated as {@link Wake.Down}). */
    CompletableFuture<Wake> wake(String hostHeader);
}
