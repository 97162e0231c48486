package dev.slipway.operator;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.core.Json;
import dev.slipway.store.Dialect;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.JavaProcess;
import dev.slipway.testing.ServerPerStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The operator commands, run as separate processes against the store of a running server. */
@EachStore
@EndToEnd
class AdminCommandsTest {
    final Dialect kind = server.kind();

    @RegisterExtension
    static final ServerPerStore server = ServerPerStore.start();

    private JavaProcess.Result slipway(String... args) {
        Map<String, String> env = kind == Dialect.POSTGRES
                ? Map.of("SLIPWAY_DATABASE_URL", server.store().jdbcUrl())
                : Map.of("SLIPWAY_DATA_DIR", server.store().dataDir().toString());
        return JavaProcess.run(env, server.store().dataDir(), args);
    }

    private static JsonNode json(JavaProcess.Result r) throws Exception {
        assertThat(r.exitCode()).as(r.stderr()).isZero();
        return Json.MAPPER.readTree(r.stdout());
    }

    @Test
    void createAnAccountAndAKeyThenUseAndRevokeIt() throws Exception {
        String name = "acme-" + System.nanoTime();
        JsonNode account = json(slipway("accounts", "create", "--name", name, "--tier", "free", "--json"));
        String accountId = account.get("id").asText();
        assertThat(account.get("tier").asText()).isEqualTo("free");
        assertThat(account.get("rate_limit").asInt()).isEqualTo(30);

        JsonNode key = json(slipway("keys", "create", "--account", accountId, "--name", "ci", "--json"));
        assertThat(key.get("account_id").asText()).isEqualTo(accountId);
        assertThat(key.get("id").asText()).startsWith("key_");
        String secret = key.get("key").asText();
        Http http = new Http(server.baseUrl(), secret);
        var ok = http.get("/v1/projects");
        assertThat(ok.status()).isEqualTo(200);
        assertThat(ok.header("X-RateLimit-Limit")).isEqualTo("30");

        JavaProcess.Result listed = slipway("keys", "list", "--account", accountId);
        assertThat(listed.exitCode()).isZero();
        assertThat(listed.stdout()).contains(key.get("id").asText()).contains("ci").contains(secret.substring(0, 10))
                .doesNotContain(secret);
        JsonNode listedJson = json(slipway("keys", "list", "--account", accountId, "--json"));
        assertThat(listedJson.toString()).doesNotContain(secret);
        assertThat(listedJson.get(0).get("last_used_at").isNull()).isFalse();

        JavaProcess.Result revoked = slipway("keys", "revoke", key.get("id").asText());
        assertThat(revoked.exitCode()).isZero();
        long deadline = System.nanoTime() + 1_000_000_000L;
        int status = 200;
        while (status == 200 && System.nanoTime() < deadline) status = http.get("/v1/projects").status();
        assertThat(status).isEqualTo(401);
        assertThat(slipway("keys", "list", "--account", accountId).stdout()).contains("revoked");
    }

    @Test
    void rateLimitOverrideAndListing() throws Exception {
        String name = "load-" + System.nanoTime();
        JsonNode account = json(slipway("accounts", "create", "--name", name, "--tier", "pro", "--rate-limit", "5000", "--json"));
        assertThat(account.get("rate_limit").asInt()).isEqualTo(5000);
        JsonNode all = json(slipway("accounts", "list", "--json"));
        assertThat(all.findValuesAsText("name")).contains(name);
        assertThat(slipway("accounts", "list").stdout()).contains(name).contains("5000");
    }

    @Test
    void usageErrorsExitTwoWithAMessage() {
        var badTier = slipway("accounts", "create", "--name", "x" + System.nanoTime(), "--tier", "gold");
        assertThat(badTier.exitCode()).isEqualTo(2);
        assertThat(badTier.stderr()).contains("tier must be one of free, pro, team");
        var noAccount = slipway("keys", "create", "--account", "acct_missing");
        assertThat(noAccount.exitCode()).isEqualTo(2);
        assertThat(noAccount.stderr()).contains("no account acct_missing");
        var revokeMissing = slipway("keys", "revoke", "key_missing");
        assertThat(revokeMissing.exitCode()).isEqualTo(2);
        var missingOption = slipway("keys", "create");
        assertThat(missingOption.exitCode()).isEqualTo(2);
        assertThat(missingOption.stderr()).contains("--account");
    }

    @Test
    void serverHelpListsEveryOptionWithItsEnvironmentVariable() {
        var help = slipway("server", "--help");
        assertThat(help.exitCode()).isZero();
        assertThat(help.stdout()).contains("--api-port", "SLIPWAY_API_PORT", "--data-dir", "SLIPWAY_DATA_DIR",
                "--database-url", "SLIPWAY_DATABASE_URL", "--apps-port", "SLIPWAY_APPS_PORT");
    }
}
