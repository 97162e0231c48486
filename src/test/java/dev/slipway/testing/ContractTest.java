package dev.slipway.testing;

import org.junit.jupiter.api.Test;

import java.net.URI;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The contract check itself can fail: answers that drift from the document are caught. */
class ContractTest {
    private static final Map<String, List<String>> JSON = Map.of("Content-Type", List.of("application/json"));
    private static final Map<String, List<String>> LIMITS = Map.of("Content-Type", List.of("application/json"),
            "X-RateLimit-Limit", List.of("30"), "X-RateLimit-Remaining", List.of("29"), "X-RateLimit-Reset", List.of("1"),
            "X-Request-Id", List.of("req_1"));

    @Test
    void aMatchingAnswerPasses() {
        assertThatCode(() -> Contract.check("GET", URI.create("http://h/v1/projects?limit=5"), Map.of(), null,
                new Http.Response(200, LIMITS, "{\"data\":[],\"pagination\":{\"has_more\":false,\"next_cursor\":null}}")))
                .doesNotThrowAnyException();
    }

    @Test
    void aMissingFieldAWrongTypeAnUndocumentedStatusAndABadEnumAreCaught() {
        assertThatThrownBy(() -> Contract.check("GET", URI.create("http://h/v1/projects"), Map.of(), null,
                new Http.Response(200, LIMITS, "{\"data\":[]}"))).hasMessageContaining("pagination");
        assertThatThrownBy(() -> Contract.check("GET", URI.create("http://h/v1/projects"), Map.of(), null,
                new Http.Response(200, LIMITS, "{\"data\":[],\"pagination\":{\"has_more\":\"no\",\"next_cursor\":null}}")))
                .isInstanceOf(AssertionError.class);
        assertThatThrownBy(() -> Contract.check("GET", URI.create("http://h/v1/projects"), Map.of(), null,
                new Http.Response(418, JSON, "{}"))).isInstanceOf(AssertionError.class);
        assertThatThrownBy(() -> Contract.check("GET", URI.create("http://h/v1/deployments/dep_1"), Map.of(), null,
                new Http.Response(404, LIMITS, "{\"error\":{\"code\":\"gone\",\"message\":\"x\",\"request_id\":\"r\"}}")))
                .isInstanceOf(AssertionError.class);
    }

    @Test
    void aSuccessfulAnswerToAnUndocumentedRequestIsCaught() {
        assertThatThrownBy(() -> Contract.check("POST", URI.create("http://h/v1/deployments"), JSON,
                "{\"project\":\"x\"}".getBytes(), new Http.Response(201, LIMITS,
                        "{\"data\":{\"id\":\"d\",\"project_id\":\"p\",\"status\":\"queued\",\"created_at\":\"2026-01-01T00:00:00Z\"}}")))
                .isInstanceOf(AssertionError.class);
    }
}
