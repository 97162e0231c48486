package dev.slipway.isolation;

import dev.slipway.net.DatabaseEndpoint;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Which host loopback ports a cell's network leads to: a configured registry's for build steps, a database's. */
class NetworkPolicyTest {
    private static final List<String> PLATFORM = List.of("http://127.0.0.1:8080", "http://127.0.0.1:8000");

    @Test
    void aRegistryOnLoopbackIsForwardedToBuildStepsAndNeverToApps() {
        NetworkPolicy policy = NetworkPolicy.of(PLATFORM, List.of("jdbc:postgresql://127.0.0.1:5432/x"),
                List.of("http://127.0.0.1:4873/"), null);
        assertThat(policy.loopbackForwards(cell(true, 0, null))).containsExactly(4873);
        assertThat(policy.loopbackForwards(cell(true, 0, new DatabaseEndpoint("127.0.0.1", 5432, true)))).containsExactly(4873, 5432);
        assertThat(policy.loopbackForwards(cell(false, 41000, null))).as("an app").isEmpty();
        assertThat(policy.loopbackForwards(cell(false, 0, null))).as("a release command or a worker").isEmpty();
        assertThat(policy.loopbackForwards(cell(false, 41000, new DatabaseEndpoint("127.0.0.1", 5432, true)))).containsExactly(5432);
    }

    @Test
    void aRegistryElsewhereOpensNothingOnTheHost() {
        NetworkPolicy policy = NetworkPolicy.of(PLATFORM, List.of(), List.of("https://registry.npmjs.org/"), null);
        assertThat(policy.buildPorts()).isEmpty();
        assertThat(policy.loopbackForwards(cell(true, 0, null))).isEmpty();
    }

    @Test
    void aRegistryOnAPortOfThePlatformsOwnIsRefused() {
        assertThatThrownBy(() -> NetworkPolicy.of(PLATFORM, List.of(), List.of("http://localhost:8080/"), null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("SLIPWAY_NPM_REGISTRY")
                .hasMessageContaining("8080");
    }

    private static Cell cell(boolean buildStep, int inboundPort, DatabaseEndpoint database) {
        return new Cell("c1", "prj_1", List.of("true"), Path.of("/"), Map.of(), List.of(), List.of(), List.of(),
                new Limits(0, 0, 0, 0), inboundPort, false, database, buildStep);
    }
}
