package dev.slipway.store;

import dev.slipway.accounts.Tier;
import dev.slipway.testing.Http;
import dev.slipway.testing.MutableClock;
import dev.slipway.testing.TestServer;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * On the embedded store a project's read comes from memory, and every write of the server's own to a table the read
 * shows is seen by the very next read, whichever store made it; a write from outside the server (a connection of the
 * test's) is not told, which shows that the read did come from memory. The server's clock stands still, so no copy
 * ages out.
 */
class EmbeddedWritesTest {
    @Test
    void theServersOwnWritesAreReadAtOnceAndReadsComeFromMemory() throws Exception {
        try (TestServer server = TestServer.start(Dialect.H2, c -> c, new MutableClock())) {
            Http http = server.tenant(Tier.PRO).http();
            String id = http.post("/v1/projects", "{\"source\":\"github\",\"repo\":\"acme/app\",\"branch\":\"main\"}")
                    .json().at("/data/id").asText();
            String path = "/v1/projects/" + id;
            assertThat(http.get(path).json().at("/data/branch").asText()).isEqualTo("main");

            try (Connection outside = DriverManager.getConnection(server.slipway().database().dataSource().getJdbcUrl());
                 PreparedStatement s = outside.prepareStatement("UPDATE projects SET branch = 'untold' WHERE id = ?")) {
                s.setString(1, id);
                assertThat(s.executeUpdate()).isEqualTo(1);
            }
            assertThat(http.get(path).json().at("/data/branch").asText()).as("kept in memory").isEqualTo("main");

            // a write of the server's own that is not the project store's (as a promotion's is): read at once
            server.slipway().database().jdbi().useTransaction(h ->
                    h.createUpdate("UPDATE projects SET branch = 'told' WHERE id = :id").bind("id", id).execute());
            assertThat(http.get(path).json().at("/data/branch").asText()).isEqualTo("told");

            // what the read shows beside the project: its git settings
            var patched = http.send("PATCH", path, "application/json", "{\"watch_paths\":[\"api/**\"]}".getBytes());
            assertThat(patched.status()).as(patched.body()).isEqualTo(200);
            assertThat(http.get(path).json().at("/data/watch_paths/0").asText()).isEqualTo("api/**");
            server.slipway().database().jdbi().useHandle(h ->
                    h.createUpdate("UPDATE project_git SET watch_paths = NULL WHERE project_id = :id").bind("id", id).execute());
            var cleared = http.get(path);
            assertThat(cleared.json().at("/data/watch_paths").size()).as(cleared.body()).isZero();
        }
    }
}
