package dev.slipway.domains;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.testing.Http;
import dev.slipway.testing.Statuses;
import dev.slipway.testing.Zips;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Plain static sites deployed from a zip (no install, no build): the quickest app to put behind an address. */
final class Sites {
    private Sites() {}

    static String upload(Http http, String content) {
        var up = http.send("POST", "/v1/uploads", "application/zip",
                Zips.of(Map.of("index.html", "<!doctype html><title>" + content + "</title><p>" + content + "</p>")));
        assertThat(up.status()).as(up.body()).isEqualTo(201);
        return up.json().at("/data/id").asText();
    }

    /** Migrates a site saying {@code content}, named {@code name}, with {@code domain} (null: none); returns the project. */
    static JsonNode migrate(Http http, String name, String domain, String content) {
        return migrate(http, name, domain, content, null);
    }

    /** As above, with more fields of the migration ({@code "env_vars":{…}}), or null. */
    static JsonNode migrate(Http http, String name, String domain, String content, String moreFields) {
        String body = "{\"source\":\"zip\",\"framework\":\"static\",\"upload_id\":\"" + upload(http, content) + "\",\"name\":\""
                + name + "\"" + (domain == null ? "" : ",\"domain\":\"" + domain + "\"")
                + (moreFields == null ? "" : "," + moreFields) + "}";
        var r = http.post("/v1/migrations", body);
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        JsonNode done = Statuses.await(http, "migrations", r.json().at("/data/id").asText(), "complete", Duration.ofSeconds(180));
        return project(http, done.get("project_id").asText());
    }

    static JsonNode project(Http http, String id) {
        var r = http.get("/v1/projects/" + id);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return r.json().get("data");
    }

    /** A fresh lowercase label for names and domains, unique per run. */
    static String unique(String prefix) {
        return prefix + Long.toString(System.nanoTime() % 1_000_000_000L, 36);
    }
}
