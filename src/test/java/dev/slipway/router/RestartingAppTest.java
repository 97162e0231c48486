package dev.slipway.router;

import dev.slipway.runtime.Instance;
import dev.slipway.runtime.local.RuntimeFixture;
import dev.slipway.runtime.TestApps;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Await;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.RecordingLog;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

@EndToEnd
class RestartingAppTest {
    @Test
    void whileACrashedAppWaitsForItsRestartTheRouterAnswers503ThenServesItAgain() {
        try (RuntimeFixture fixture = new RuntimeFixture(Dialect.H2,
                o -> o.withBackoff(Duration.ofSeconds(2), Duration.ofSeconds(10), Duration.ofSeconds(30)))) {
            Instance app = fixture.runtime.start(TestApps.spec("v1", Map.of()), new RecordingLog());
            RouteTable routes = new RouteTable("localhost");
            routes.setProduction("flaky", new Target.Upstream(app.port()));
            try (AppsListener listener = AppsListener.start("127.0.0.1", 0, routes, fixture.runtime::restarting)) {
                AppsClient client = new AppsClient(listener.port());
                assertThat(client.get("flaky.localhost", "/crash").body()).isEqualTo("crashing");

                Http.Response starting = Await.value(Duration.ofSeconds(2), "a 503", () -> {
                    Http.Response r = client.get("flaky.localhost", "/");
                    return r.status() == 503 ? r : null;
                });
                assertThat(starting.header("Retry-After")).isEqualTo("5");
                assertThat(starting.body()).contains("The app at flaky.localhost is starting");

                Await.until(Duration.ofSeconds(10), "the app serves again", () -> {
                    Http.Response r = client.get("flaky.localhost", "/");
                    return r.status() == 200 && r.body().equals("app:v1");
                });
            }
        }
    }
}
