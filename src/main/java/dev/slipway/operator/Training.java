package dev.slipway.operator;

import dev.slipway.core.Env;
import dev.slipway.core.Setting;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * The launcher's training run (SLIPWAY_TRAINING_RUN=1): a server on a throwaway store answers a few
 * requests and exits, so that the class-data archive made from it holds what a real start and its
 * first requests load.
 */
final class Training {
    /** Not an operator's setting: the launcher sets it for its training run. */
    static final Setting RUN = Setting.env("SLIPWAY_TRAINING_RUN", "none", "`1`: a training run");

    private Training() {}

    static boolean requested(Env env) {
        return env.text(RUN).filter("1"::equals).isPresent();
    }

    /** A few requests to the API, and one to the apps listener (an edge process's cache holds what it loads). */
    static void exercise(int apiPort, int appsPort) {
        try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
            for (String url : new String[] {api(apiPort, "/readyz"), api(apiPort, "/healthz"), api(apiPort, "/v1/projects"),
                    api(apiPort, "/dashboard/sign-in"), "http://127.0.0.1:" + appsPort + "/"}) {
                HttpRequest request = HttpRequest.newBuilder(URI.create(url))
                        .header("Authorization", "Bearer sk_training_only_not_a_key").timeout(Duration.ofSeconds(10)).build();
                http.send(request, HttpResponse.BodyHandlers.discarding());
            }
        } catch (Exception e) {
            System.err.println("training requests failed: " + e);
        }
    }

    private static String api(int port, String path) {
        return "http://127.0.0.1:" + port + path;
    }
}
