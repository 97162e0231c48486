package dev.slipway.api;

import dev.slipway.net.BoundPort;
import io.javalin.Javalin;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A task handed to {@link Requests#afterAnswer} runs once the client has the answer. The handler's task waits
 * until the test has read the answer: run before the answer, it would hold it back, and the client would time out.
 */
class AfterAnswerTest {
    static BoundPort port;
    static Javalin app;
    static final CountDownLatch answered = new CountDownLatch(1);
    static final CountDownLatch ran = new CountDownLatch(1);

    @BeforeAll
    static void start() {
        port = BoundPort.bind("test API", "127.0.0.1", 0);
        app = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.concurrency.useVirtualThreads = true;
            config.jetty.addConnector((server, http) -> port.connector(server, new HttpConnectionFactory(http)));
            config.routes.post("/later", ctx -> {
                Requests.afterAnswer(ctx).execute(() -> {
                    try {
                        if (answered.await(30, TimeUnit.SECONDS)) ran.countDown();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                ctx.status(201).result("{\"ok\":true}");
            });
        }).start();
    }

    @AfterAll
    static void stop() {
        app.stop();
    }

    @Test
    void theTaskRunsAfterTheClientHasTheAnswer() throws Exception {
        try (HttpClient client = HttpClient.newHttpClient()) {
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port.port() + "/later"))
                    .timeout(Duration.ofSeconds(10)).POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(201);
            assertThat(r.body()).isEqualTo("{\"ok\":true}");
            answered.countDown();
        }
        assertThat(ran.await(30, TimeUnit.SECONDS)).as("the task ran after the answer").isTrue();
    }
}
