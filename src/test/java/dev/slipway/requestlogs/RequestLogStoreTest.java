package dev.slipway.requestlogs;

import dev.slipway.testing.DatabasePerStore;
import dev.slipway.testing.EachStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A deployment's request log keeps its newest lines and no more, another deployment's untouched; a search's path prefix
 * is taken literally; on H2 and PostgreSQL.
 */
@EachStore
class RequestLogStoreTest {
    @RegisterExtension
    static final DatabasePerStore database = DatabasePerStore.open(4);

    @Test
    void aDeploymentKeepsItsNewestLinesAndAPrefixIsLiteral() {
        RequestLogStore store = new RequestLogStore(database.jdbi(), 100);
        String busy = "dep_busy" + System.nanoTime(), quiet = "dep_quiet" + System.nanoTime();
        store.save(List.of(line(quiet, 0, "/one_a"), line(quiet, 1, "/one%b")));
        for (int batch = 0; batch < 6; batch++) {
            List<RequestLine> lines = new ArrayList<>();
            for (int i = 0; i < 50; i++) lines.add(line(busy, batch * 50 + i, "/n/" + (batch * 50 + i)));
            store.save(lines);
        }
        List<RequestLine> kept = store.search(busy, RequestLogStore.Filter.ALL, 0, 1000);
        assertThat(kept.size()).as("the newest 100, and at most a tenth more until the next trim").isBetween(100, 110);
        assertThat(kept.getFirst().path()).isEqualTo("/n/299");
        assertThat(kept.getLast().path()).isEqualTo("/n/" + (300 - kept.size()));
        assertThat(store.search(quiet, RequestLogStore.Filter.ALL, 0, 10)).hasSize(2);

        assertThat(store.search(quiet, new RequestLogStore.Filter(100, 599, "/one_"), 0, 10)).extracting(RequestLine::path)
                .containsExactly("/one_a");
        assertThat(store.search(quiet, new RequestLogStore.Filter(100, 599, "/one%"), 0, 10)).extracting(RequestLine::path)
                .containsExactly("/one%b");
        assertThat(store.search(quiet, new RequestLogStore.Filter(100, 599, "/one!"), 0, 10)).isEmpty();
        assertThat(store.search(quiet, new RequestLogStore.Filter(500, 599, "/"), 0, 10)).isEmpty();
    }

    private static RequestLine line(String deployment, int i, String path) {
        return new RequestLine(0, "prj_x", deployment, Instant.ofEpochSecond(1_795_770_000L + i), "GET", path, 200, 1000 + i, i,
                "127.0.0.1");
    }
}
