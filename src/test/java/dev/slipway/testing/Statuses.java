package dev.slipway.testing;

import com.fasterxml.jackson.databind.JsonNode;

import java.time.Duration;

/** The one wait for a run's status through the API, for every test that deploys. */
public final class Statuses {
    private Statuses() {}

    /** Uploads the files as a zip, migrates it as a {@code node-express} app and waits for it: the complete migration. */
    public static JsonNode migrateZip(Http http, java.util.Map<String, String> files) {
        var upload = http.send("POST", "/v1/uploads", "application/zip", Zips.of(files));
        org.assertj.core.api.Assertions.assertThat(upload.status()).as(upload.body()).isEqualTo(201);
        var migration = http.post("/v1/migrations", "{\"source\":\"zip\",\"framework\":\"node-express\",\"upload_id\":\""
                + upload.json().at("/data/id").asText() + "\"}");
        org.assertj.core.api.Assertions.assertThat(migration.status()).as(migration.body()).isEqualTo(201);
        return await(http, "migrations", migration.json().at("/data/id").asText(), "complete", Duration.ofMinutes(3));
    }

    /**
     * Waits until {@code /v1/<kind>/<id>} has {@code status}; fails at once, with the run's log, when it is
     * {@code failed} and that is not what was wanted. A long poll answers when the status changes from what
     * it was when the poll came, so each round reads first, then long-polls briefly.
     *
     * @param kind {@code deployments} or {@code migrations}
     */
    public static JsonNode await(Http http, String kind, String id, String status, Duration timeout) {
        return Await.value(timeout, kind + " " + id + " to be " + status, () -> {
            JsonNode d = check(http, kind, id, status, http.get("/v1/" + kind + "/" + id).json().get("data"));
            return d != null ? d : check(http, kind, id, status, http.get("/v1/" + kind + "/" + id + "?wait=2").json().get("data"));
        });
    }

    private static JsonNode check(Http http, String kind, String id, String status, JsonNode d) {
        if (d == null) throw new AssertionError("no " + kind + " " + id);
        String now = d.get("status").asText();
        if (now.equals(status)) return d;
        if (now.equals("failed")) {
            throw new AssertionError(kind + " " + id + " failed, expected " + status + "; log: "
                    + http.get("/v1/" + kind + "/" + id + "/logs").body());
        }
        return null;
    }
}
