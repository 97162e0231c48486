package dev.slipway.databases;

import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Statuses;
import dev.slipway.teardown.ProjectGone;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Tier;
import dev.slipway.backup.Backup;
import dev.slipway.core.Json;
import dev.slipway.secrets.SecretBox;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Apps;
import dev.slipway.testing.Await;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.ServerPerStore;
import dev.slipway.testing.TestServer;
import dev.slipway.testing.TestStore;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code database} in {@code POST /v1/migrations}, end to end on the real PostgreSQL and MariaDB
 * servers: create and connect, an app that writes and reads through its DATABASE_URL, the same URL
 * for later deployments and rollbacks, plain failures, cleanup, and no secret in responses, logs or
 * the store.
 */
@EachStore
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@EndToEnd
class DatabaseMigrationTest {
    private static final Duration RUN = Duration.ofSeconds(180);
    private static final String ENV_SECRET = "env-s3cr3t-value-4d2c";
    /** Shared by the builds of this class, so each build does not download pg and mysql2 again. */
    private static final String NPM_CACHE = System.getProperty("java.io.tmpdir") + "/slipway-db-test-npm-cache";

    @RegisterExtension
    static final ServerPerStore server = ServerPerStore.withGit(c -> c.databaseAdmins(DbServers.postgresAdmin(), DbServers.mysqlAdmin()));
    static TestServer.Tenant tenant;
    /** Everything secret this class handed out or saw: must never show up in a response, a log or the store. */
    static final Set<String> secrets = new LinkedHashSet<>();
    /** Slipway-made databases (kind, slw name) and test-made ones (kind, name): dropped and checked gone at the end. */
    static final List<Object[]> made = new ArrayList<>();
    static final List<Object[]> byHand = new ArrayList<>();

    @EachStore.Before
    static void start() {
        tenant = server.tenant(Tier.TEAM, 1_000_000); // the waits below poll
        secrets.clear();
        secrets.add(ENV_SECRET);
    }

    @EachStore.After
    static void stop() {
        try {
            server.stop();
        } finally {
            for (Object[] m : made) DbServers.dropMade((DbKind) m[0], (String) m[1]);
            for (Object[] m : byHand) dropByHand((DbKind) m[0], (String) m[1]);
            for (Object[] m : made) assertGone((DbKind) m[0], (String) m[1]);
            for (Object[] m : byHand) assertGone((DbKind) m[0], (String) m[1]);
            made.clear();
            byHand.clear();
        }
    }

    // ---- helpers

    static String repo(String name, Map<String, String> files) {
        String repo = "acme/" + name + "-" + System.nanoTime();
        server.git().createRepo(repo);
        server.git().commit(repo, "main", files, "First version");
        return repo;
    }

    static String migrate(String repo, String database) {
        var r = tenant.http().post("/v1/migrations", "{\"source\":\"github\",\"repo\":\"" + repo
                + "\",\"framework\":\"node-express\",\"env_vars\":{\"SECRET_TOKEN\":\"" + ENV_SECRET
                + "\",\"npm_config_cache\":\"" + NPM_CACHE + "\"},\"database\":" + database + "}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().at("/data/id").asText();
    }

    static JsonNode awaitMigration(String id, String status) {
        return Statuses.await(tenant.http(), "migrations", id, status, RUN);
    }

    static JsonNode awaitDeployment(String id) {
        return Statuses.await(tenant.http(), "deployments", id, "live", RUN);
    }

    static List<String> logs(String path) {
        List<String> out = new ArrayList<>();
        tenant.http().get(path).json().at("/data/logs").forEach(e -> out.add(e.get("level").asText() + " " + e.get("message").asText()));
        return out;
    }

    static JsonNode app(String url, String path) {
        var r = Apps.get(url + path);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        try {
            return Json.MAPPER.readTree(r.body());
        } catch (Exception e) {
            throw new AssertionError(r.body(), e);
        }
    }

    static List<String> values(JsonNode roundtrip) {
        List<String> out = new ArrayList<>();
        roundtrip.get("values").forEach(v -> out.add(v.asText()));
        return out;
    }

    static String sha256(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** No response of the API about this migration, and none of its logs, contains a secret. */
    static void assertNoSecretInApi(String migrationId, String projectId) {
        List<String> paths = new ArrayList<>(List.of("/v1/migrations/" + migrationId, "/v1/migrations/" + migrationId + "/logs",
                "/v1/migrations", "/v1/projects/" + projectId, "/v1/projects", "/v1/deployments?project_id=" + projectId));
        tenant.http().get("/v1/deployments?project_id=" + projectId).json().get("data").forEach(d -> {
            paths.add("/v1/deployments/" + d.get("id").asText());
            paths.add("/v1/deployments/" + d.get("id").asText() + "/logs");
        });
        for (String path : paths) {
            String body = tenant.http().get(path).body();
            for (String secret : secrets) assertThat(body).as(path).doesNotContain(secret);
        }
    }

    static void createByHand(DbKind kind, String name, String password) throws Exception {
        byHand.add(new Object[]{kind, name});
        try (Connection c = DbServers.connect(kind)) {
            if (kind == DbKind.POSTGRES) {
                try (var s = c.createStatement()) {
                    s.execute("CREATE ROLE \"" + name + "\" LOGIN PASSWORD '" + password.replace("'", "''") + "'");
                    s.execute("CREATE DATABASE \"" + name + "\" OWNER \"" + name + "\"");
                }
            } else {
                try (var s = c.createStatement()) {
                    s.execute("CREATE DATABASE `" + name + "`");
                }
                try (var ps = c.prepareStatement("CREATE USER ?@'%' IDENTIFIED BY ?")) {
                    ps.setString(1, name);
                    ps.setString(2, password);
                    ps.execute();
                }
                try (var ps = c.prepareStatement("GRANT ALL PRIVILEGES ON `" + name + "`.* TO ?@'%'")) {
                    ps.setString(1, name);
                    ps.execute();
                }
            }
        }
    }

    static void dropByHand(DbKind kind, String name) {
        if (kind == DbKind.POSTGRES) {
            DbServers.exec(kind, "DROP DATABASE IF EXISTS \"" + name + "\" WITH (FORCE)", "DROP ROLE IF EXISTS \"" + name + "\"");
        } else {
            DbServers.exec(kind, "DROP DATABASE IF EXISTS `" + name + "`", "DROP USER IF EXISTS '" + name + "'@'%'");
        }
    }

    static void assertGone(DbKind kind, String name) {
        assertThat(DbServers.databaseExists(kind, name)).as("database " + name + " left on " + kind).isFalse();
        assertThat(DbServers.userExists(kind, name)).as("user " + name + " left on " + kind).isFalse();
    }

    static int port(DbKind kind) {
        return DbServers.adminAddress(kind).port();
    }

    // ---- create

    @ParameterizedTest
    @EnumSource(DbKind.class)
    @Order(1)
    void createProvisionsADatabaseThatTheAppWritesAndReadsAndKeepsAcrossDeploysAndRollbacks(DbKind kind) throws Exception {
        String repo = repo("db-create-" + kind.label(), DbApp.version("v1"));
        String migrationId = migrate(repo, "{\"type\":\"" + kind.label() + "\",\"action\":\"create\"}");
        JsonNode migration = awaitMigration(migrationId, "complete");
        String dbId = migration.at("/database/project_id").asText();
        assertThat(migration.at("/database/type").asText()).isEqualTo(kind.label());
        assertThat(dbId).matches("db_[0-9a-z]{26}");
        String name = Identifiers.nameFor(dbId);
        made.add(new Object[]{kind, name});
        String projectId = migration.get("project_id").asText();
        JsonNode project = tenant.http().get("/v1/projects/" + projectId).json().get("data");
        assertThat(project.at("/database/project_id").asText()).isEqualTo(dbId);
        assertThat(project.at("/database/type").asText()).isEqualTo(kind.label());
        assertThat(project.at("/database/status").asText()).isEqualTo("ready");
        assertThat(DbServers.databaseExists(kind, name)).isTrue();
        assertThat(DbServers.userExists(kind, name)).isTrue();

        // the app got DATABASE_URL at build and at run time, for its own database and user
        String prodUrl = project.get("url").asText();
        JsonNode info = app(prodUrl, "/info");
        String databaseUrl = info.get("database_url").asText();
        String password = DbAddress.parse(databaseUrl).password();
        secrets.add(password);
        secrets.add(databaseUrl);
        DbAddress admin = DbServers.adminAddress(kind);
        assertThat(databaseUrl).isEqualTo(kind.label() + "://" + name + ":" + password + "@" + admin.host() + ":"
                + admin.port() + "/" + name);
        assertThat(password).matches("[A-Za-z0-9]{32}");
        assertThat(info.get("build_url_sha").asText()).isEqualTo(sha256(databaseUrl));
        assertThat(info.get("run_url_sha").asText()).isEqualTo(sha256(databaseUrl));
        assertThat(values(app(prodUrl, "/roundtrip/first"))).containsExactly("first");
        // the row is really in that database on that server
        try (Connection c = Connections.open(admin.with(name, admin.user(), admin.password()));
             var rs = c.createStatement().executeQuery("SELECT value FROM notes")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).isEqualTo("first");
        }
        List<String> migrationLogs = logs("/v1/migrations/" + migrationId + "/logs");
        assertThat(migrationLogs).anyMatch(m -> m.contains("Provisioning the " + kind.label() + " database " + dbId))
                .anyMatch(m -> m.contains("Database " + dbId + " is ready"))
                .anyMatch(m -> m.contains("build sees DATABASE_URL ****"))
                .anyMatch(m -> m.contains("listening with DATABASE_URL ****"))
                .anyMatch(m -> m.contains("database password ****"));

        // a later deployment gets the same database
        server.git().commit(repo, "main", DbApp.version("v2"), "Second version");
        var second = tenant.http().post("/v1/deployments", "{\"project_id\":\"" + projectId + "\"}");
        assertThat(second.status()).as(second.body()).isEqualTo(201);
        awaitDeployment(second.json().at("/data/id").asText());
        JsonNode info2 = app(prodUrl, "/info");
        assertThat(info2.get("version").asText()).isEqualTo("v2");
        assertThat(info2.get("run_url_sha").asText()).isEqualTo(sha256(databaseUrl));
        assertThat(info2.get("build_url_sha").asText()).isEqualTo(sha256(databaseUrl));
        assertThat(values(app(prodUrl, "/roundtrip/second"))).containsExactly("first", "second");
        assertThat(logs("/v1/deployments/" + second.json().at("/data/id").asText() + "/logs"))
                .anyMatch(m -> m.contains("Using the project's " + kind.label() + " database " + dbId));

        // and so does a rollback to the first
        String first = migration.get("deployment_id").asText();
        var rollback = tenant.http().send("POST", "/v1/deployments/" + first + "/rollback", null, null);
        assertThat(rollback.status()).as(rollback.body()).isEqualTo(201);
        awaitDeployment(rollback.json().at("/data/id").asText());
        JsonNode info3 = app(prodUrl, "/info");
        assertThat(info3.get("version").asText()).isEqualTo("v1");
        assertThat(info3.get("run_url_sha").asText()).isEqualTo(sha256(databaseUrl));
        assertThat(values(app(prodUrl, "/roundtrip/third"))).containsExactly("first", "second", "third");

        if (kind == DbKind.POSTGRES) previewsGetTheDatabaseOnlyWhenAsked(projectId, databaseUrl);
        assertNoSecretInApi(migrationId, projectId);

        // deleting the project stops its apps (previews and the one kept warm too); its database goes only when asked
        boolean drop = kind == DbKind.POSTGRES;
        ProjectGone.delete(tenant.http(), server.slipway(), projectId, drop ? "?delete_database=true" : "", List.of(prodUrl));
        assertThat(DbServers.databaseExists(kind, name)).as("database kept unless asked").isEqualTo(!drop);
        assertThat(DbServers.userExists(kind, name)).as("its user too").isEqualTo(!drop);
        if (!drop) {
            try (Connection c = Connections.open(admin.with(name, admin.user(), admin.password()));
                 var rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM notes")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getInt(1)).as("its data kept").isEqualTo(3);
            }
        }
    }

    /** A preview runs unreleased code: production's database only with share_database, else what its request gives. */
    static void previewsGetTheDatabaseOnlyWhenAsked(String projectId, String databaseUrl) {
        String elsewhere = "postgres://preview:unused@127.0.0.1:9/preview";
        var apart = tenant.http().post("/v1/deployments", "{\"project_id\":\"" + projectId
                + "\",\"target\":\"preview\",\"env_vars\":{\"DATABASE_URL\":\"" + elsewhere + "\"}}");
        assertThat(apart.status()).as(apart.body()).isEqualTo(201);
        JsonNode own = awaitDeployment(apart.json().at("/data/id").asText());
        assertThat(app(own.get("preview_url").asText(), "/info").get("database_url").asText()).isEqualTo(elsewhere);
        var shared = tenant.http().post("/v1/deployments", "{\"project_id\":\"" + projectId
                + "\",\"target\":\"preview\",\"share_database\":true}");
        assertThat(shared.status()).as(shared.body()).isEqualTo(201);
        JsonNode sharing = awaitDeployment(shared.json().at("/data/id").asText());
        assertThat(app(sharing.get("preview_url").asText(), "/info").get("database_url").asText()).isEqualTo(databaseUrl);
        var production = tenant.http().post("/v1/deployments", "{\"project_id\":\"" + projectId + "\",\"share_database\":true}");
        assertThat(production.status()).as(production.body()).isEqualTo(400);
    }

    @ParameterizedTest
    @EnumSource(DbKind.class)
    @Order(2)
    void aFailedMigrationRemovesTheDatabaseItMade(DbKind kind) {
        String repo = repo("db-broken-" + kind.label(), DbApp.failingBuild());
        String migrationId = migrate(repo, "{\"type\":\"" + kind.label() + "\",\"action\":\"create\"}");
        JsonNode migration = awaitMigration(migrationId, "failed");
        String dbId = migration.at("/database/project_id").asText();
        String name = Identifiers.nameFor(dbId);
        made.add(new Object[]{kind, name});
        List<String> migrationLogs = logs("/v1/migrations/" + migrationId + "/logs");
        assertThat(migrationLogs).as("it was made before the build")
                .anyMatch(m -> m.contains("Database " + dbId + " is ready"))
                .anyMatch(m -> m.contains("compile error in build.js"));
        Await.until(Duration.ofSeconds(30), "the database to be removed", () ->
                logs("/v1/migrations/" + migrationId + "/logs").stream().anyMatch(m -> m.contains("Removed the " + kind.label() + " database " + dbId)));
        assertGone(kind, name);
        JsonNode project = tenant.http().get("/v1/projects/" + migration.get("project_id").asText()).json().get("data");
        assertThat(project.at("/database/status").asText()).isEqualTo("dropped");

        // a later deployment of that project says why there is no database
        var later = tenant.http().post("/v1/deployments", "{\"project_id\":\"" + project.get("id").asText() + "\"}");
        String laterId = later.json().at("/data/id").asText();
        Await.until(RUN, "the later deployment to fail", () ->
                tenant.http().get("/v1/deployments/" + laterId + "?wait=20").json().at("/data/status").asText().equals("failed"));
        assertThat(logs("/v1/deployments/" + laterId + "/logs")).anyMatch(m -> m.startsWith("error") && m.contains("was removed when its migration failed"));
        assertGone(kind, name);
    }

    // ---- connect

    @ParameterizedTest
    @EnumSource(DbKind.class)
    @Order(3)
    void connectChecksTheCredentialsAndGivesTheAppAUrlBuiltFromThem(DbKind kind) throws Exception {
        String name = DbServers.unique("sltest");
        String key = "Sk-" + DbServers.unique("") + "/:@#%?&+ x";
        createByHand(kind, name, key);
        secrets.add(key);
        secrets.add(DbAddress.encode(key));
        String repo = repo("db-connect-" + kind.label(), DbApp.version("v1"));
        String options = kind == DbKind.POSTGRES ? "?sslmode=disable" : ""; // the one option a client may pass
        String url = kind.label() + "://" + name + "@127.0.0.1:" + port(kind) + "/" + name + options;
        String migrationId = migrate(repo, "{\"type\":\"" + kind.label() + "\",\"action\":\"connect\",\"url\":\"" + url
                + "\",\"service_key\":" + Json.write(key) + "}");
        JsonNode migration = awaitMigration(migrationId, "complete");
        assertThat(migration.at("/database/project_id").asText()).matches("db_[0-9a-z]{26}");
        String prodUrl = tenant.http().get("/v1/projects/" + migration.get("project_id").asText()).json().at("/data/url").asText();
        JsonNode info = app(prodUrl, "/info");
        String expected = kind.label() + "://" + name + ":" + DbAddress.encode(key) + "@127.0.0.1:" + port(kind) + "/" + name + options;
        assertThat(info.get("database_url").asText()).isEqualTo(expected);
        secrets.add(expected);
        assertThat(DbAddress.parse(expected).password()).isEqualTo(key);
        assertThat(values(app(prodUrl, "/roundtrip/connected"))).containsExactly("connected");
        assertThat(logs("/v1/migrations/" + migrationId + "/logs"))
                .anyMatch(m -> m.contains("Connected to the " + kind.label() + " database at 127.0.0.1:" + port(kind) + "/" + name))
                .anyMatch(m -> m.contains("database password ****"));
        assertNoSecretInApi(migrationId, migration.get("project_id").asText());
    }

    /** Fails the migration before any build, with {@code expected} in an error line and the key nowhere. */
    void assertConnectFails(DbKind kind, String url, String key, String expected) {
        secrets.add(key);
        String repo = repo("db-bad-" + kind.label(), DbApp.failingBuild());
        String migrationId = migrate(repo, "{\"type\":\"" + kind.label() + "\",\"action\":\"connect\",\"url\":\"" + url
                + "\",\"service_key\":\"" + key + "\"}");
        JsonNode migration = awaitMigration(migrationId, "failed");
        List<String> lines = logs("/v1/migrations/" + migrationId + "/logs");
        assertThat(lines).as(String.join("\n", lines))
                .anyMatch(m -> m.startsWith("error Migration failed") && m.contains(expected))
                .noneMatch(m -> m.contains("Build started"));
        assertNoSecretInApi(migrationId, migration.get("project_id").asText());
        // what a failed migration made is removed just after the failure is recorded (as in the test above);
        // a long-poll now answers at that commit, so the removal may still be under way
        Await.until(Duration.ofSeconds(10), "the connection details to be discarded", () ->
                logs("/v1/migrations/" + migrationId + "/logs").stream().anyMatch(m -> m.contains("Discarded the connection details")));
        JsonNode project = tenant.http().get("/v1/projects/" + migration.get("project_id").asText()).json().get("data");
        assertThat(project.at("/database/status").asText()).isEqualTo("dropped");
    }

    @Test
    @Order(4)
    void connectWithAWrongPasswordFailsSayingAuthenticationFailed() throws Exception {
        // MariaDB checks passwords; the machine's PostgreSQL trusts loopback, so its wrong credential is a missing user
        String name = DbServers.unique("sltest");
        createByHand(DbKind.MYSQL, name, "the-right-key-" + name);
        assertConnectFails(DbKind.MYSQL, "mysql://" + name + "@127.0.0.1:" + port(DbKind.MYSQL) + "/" + name,
                "wrong-key-" + DbServers.unique(""), "authentication failed for user " + name);
        String nobody = DbServers.unique("sltestnobody");
        assertConnectFails(DbKind.POSTGRES, "postgres://" + nobody + "@127.0.0.1:" + port(DbKind.POSTGRES) + "/postgres",
                "some-key-" + DbServers.unique(""), "authentication failed: the user " + nobody + " does not exist");
    }

    @ParameterizedTest
    @EnumSource(DbKind.class)
    @Order(5)
    void connectToAClosedPortOrAMissingDatabaseFailsSayingSo(DbKind kind) throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        // a port of this server that is not the provided database server: refused before any connection, so
        // nothing tells a closed port from an open one
        for (String host : List.of("127.0.0.1", "localhost", "[::1]", "0.0.0.0", "169.254.169.254", "10.1.2.3", "192.168.0.9")) {
            var r = tenant.http().post("/v1/migrations", "{\"source\":\"github\",\"repo\":\"acme/probe\",\"database\":"
                    + "{\"type\":\"" + kind.label() + "\",\"action\":\"connect\",\"url\":\"" + kind.label() + "://someone@"
                    + host + ":" + closed + "/app\",\"service_key\":\"key-probe\"}}");
            assertThat(r.status()).as(host + ": " + r.body()).isEqualTo(400);
            assertThat(r.json().at("/error/details/database.url").asText()).as(host)
                    .contains("address not allowed").doesNotContain("refused");
        }
        String user = DbServers.unique("sltest");
        createByHand(kind, user, "key-of-" + user);
        String missing = DbServers.unique("sltestmissing");
        assertConnectFails(kind, kind.label() + "://" + user + "@127.0.0.1:" + port(kind) + "/" + missing, "key-of-" + user,
                kind == DbKind.POSTGRES ? "the database " + missing + " does not exist"
                        : "the user " + user + " has no access to the database " + missing);
        assertConnectFails(kind, kind.label() + "://someone@no-such-host.invalid:" + port(kind) + "/app", "key-" + DbServers.unique(""),
                "the host no-such-host.invalid cannot be resolved");
    }

    // ---- at request time

    @Test
    @Order(6)
    void requestsThatCannotWorkAreRefusedAt400() {
        String base = "{\"source\":\"github\",\"repo\":\"acme/refused\",\"database\":";
        record Case(String database, String field, String says) {}
        List<Case> cases = List.of(
                new Case("{\"type\":\"postgres\",\"action\":\"connect\",\"service_key\":\"k-secret-1\"}", "database.url", "required"),
                new Case("{\"type\":\"mysql\",\"action\":\"connect\",\"url\":\"mysql://u@h/db\"}", "database.service_key", "required"),
                new Case("{\"type\":\"postgres\",\"action\":\"connect\",\"url\":\"mysql://u@h/db\",\"service_key\":\"k-secret-2\"}", "database.url", "mysql URL"),
                new Case("{\"type\":\"postgres\",\"action\":\"connect\",\"url\":\"postgres://u:pw-in-url-777@h/db\",\"service_key\":\"k-secret-3\"}", "database.url", "must not contain a password"),
                new Case("{\"type\":\"postgres\",\"action\":\"connect\",\"url\":\"postgres://h:5432/db\",\"service_key\":\"k-secret-4\"}", "database.url", "must name the user"),
                new Case("{\"type\":\"mysql\",\"action\":\"connect\",\"url\":\"mysql://u@h:3306\",\"service_key\":\"k-secret-5\"}", "database.url", "must name the database"),
                new Case("{\"type\":\"mysql\",\"action\":\"connect\",\"url\":\"http://u@h/db\",\"service_key\":\"k-secret-6\"}", "database.url", "must start with"),
                new Case("{\"type\":\"postgres\",\"action\":\"create\",\"service_key\":\"k-secret-7\"}", "database.service_key", "only for action connect"),
                new Case("{\"type\":\"postgres\",\"action\":\"connect\",\"url\":\"postgres://u@h/db?socketFactory=x.Y\",\"service_key\":\"k-secret-8\"}", "database.url", "may not carry the query parameter socketFactory"),
                new Case("{\"type\":\"mysql\",\"action\":\"connect\",\"url\":\"mysql://u@h/db?allowLoadLocalInfile=true\",\"service_key\":\"k-secret-9\"}", "database.url", "may not carry"),
                new Case("{\"type\":\"oracle\",\"action\":\"create\"}", "database.type", "postgres or mysql"));
        for (Case c : cases) {
            var r = tenant.http().post("/v1/migrations", base + c.database() + "}");
            assertThat(r.status()).as(c.database() + " → " + r.body()).isEqualTo(400);
            assertThat(r.json().at("/error/details/" + c.field().replace("/", "~1")).asText()).as(r.body()).contains(c.says());
            assertThat(r.body()).doesNotContain("k-secret-").doesNotContain("pw-in-url-777");
        }
        var both = tenant.http().post("/v1/migrations", "{\"source\":\"github\",\"repo\":\"acme/refused\","
                + "\"env_vars\":{\"DATABASE_URL\":\"x\"},\"database\":{\"type\":\"postgres\",\"action\":\"create\"}}");
        assertThat(both.status()).isEqualTo(400);
        assertThat(both.json().at("/error/details").has("env_vars.DATABASE_URL")).as(both.body()).isTrue();
        assertThat(tenant.http().get("/v1/migrations").json().get("data").toString()).doesNotContain("acme/refused");
    }

    @Test
    @Order(7)
    void aProviderThatIsNotConfiguredIsRefusedNamingItsSetting() {
        try (TestServer bare = TestServer.start(Dialect.H2)) {
            var t = bare.tenant(Tier.TEAM);
            for (DbKind kind : DbKind.values()) {
                var r = t.http().post("/v1/migrations", "{\"source\":\"github\",\"repo\":\"acme/x\",\"database\":{\"type\":\""
                        + kind.label() + "\",\"action\":\"create\"}}");
                assertThat(r.status()).as(r.body()).isEqualTo(400);
                assertThat(r.json().at("/error/message").asText()).contains(kind.adminSetting());
                assertThat(r.json().at("/error/details/database.type").asText()).contains(kind.adminSetting());
            }
            assertThat(t.http().get("/v1/projects").json().get("data").size()).isZero();
        }
    }

    // ---- at rest

    @ParameterizedTest
    @EnumSource(DbKind.class)
    @Order(8)
    void anAppsDatabaseIsInTheBackupAndIsMadeAgainAndLoadedWhenItIsGone(DbKind kind) throws Exception {
        String repo = repo("db-backup-" + kind.label(), DbApp.version("v1"));
        JsonNode migration = awaitMigration(migrate(repo, "{\"type\":\"" + kind.label() + "\",\"action\":\"create\"}"), "complete");
        String dbId = migration.at("/database/project_id").asText();
        String name = Identifiers.nameFor(dbId);
        made.add(new Object[]{kind, name});
        String url = tenant.http().get("/v1/projects/" + migration.get("project_id").asText()).json().at("/data/url").asText();
        assertThat(values(app(url, "/roundtrip/kept-by-the-backup"))).containsExactly("kept-by-the-backup");

        DatabaseDumps dumps = new DatabaseDumps(server.slipway().database().jdbi(), SecretBox.fromBase64(server.store().secretKey()));
        Path dir = Files.createTempDirectory("slipway-dumps-");
        Path backup = dir.resolve("slipway.tar.gz");
        try {
            var written = Backup.write(server.slipway().database(), server.kind() == Dialect.POSTGRES ? server.store().jdbcUrl() : null,
                    server.store().dataDir(), dumps, backup, java.time.Clock.systemUTC());
            assertThat(written.manifest().entries()).extracting(e -> e.name()).contains("databases/" + dbId + ".sql");
            Path sql = dir.resolve(dbId + ".sql");
            try (var in = new org.apache.commons.compress.archivers.tar.TarArchiveInputStream(
                    new org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream(Files.newInputStream(backup)))) {
                for (var e = in.getNextEntry(); e != null; e = in.getNextEntry()) {
                    if (e.getName().equals("databases/" + dbId + ".sql")) Files.write(sql, in.readAllBytes());
                }
            }
            assertThat(Files.readString(sql)).contains("kept-by-the-backup");

            // the database server lost it: the restore makes it again, as the admin, and loads the dump as its user
            DbServers.dropMade(kind, name);
            assertThat(DbServers.databaseExists(kind, name)).isFalse();
            assertThatThrownBy(() -> dumps.load(dbId, sql, Map.of())).hasMessageContaining(kind.adminSetting());
            assertThat(dumps.load(dbId, sql, Map.of(kind, DbServers.adminAddress(kind)))).endsWith(": made again, loaded");
            DbAddress admin = DbServers.adminAddress(kind);
            try (Connection c = Connections.open(admin.with(name, admin.user(), admin.password()));
                 var rs = c.createStatement().executeQuery("SELECT value FROM notes")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo("kept-by-the-backup");
            }
            assertThat(dumps.load(dbId, sql, Map.of(kind, admin))).as("a database that has tables is left alone")
                    .contains("kept as it is");
        } finally {
            TestStore.deleteTree(dir);
        }
    }

    @Test
    @Order(100)
    void theStoreAndTheDataDirHoldNoSecretInPlainText() throws Exception {
        // its own create and connect, so it never depends on the tests before it
        String repo = repo("db-dump", DbApp.version("v1"));
        String created = migrate(repo, "{\"type\":\"postgres\",\"action\":\"create\"}");
        String name = DbServers.unique("sltest");
        String key = "dump-key-" + DbServers.unique("");
        createByHand(DbKind.MYSQL, name, key);
        secrets.add(key);
        String connected = migrate(repo("db-dump2", DbApp.version("v1")), "{\"type\":\"mysql\",\"action\":\"connect\",\"url\":\"mysql://"
                + name + "@127.0.0.1:" + port(DbKind.MYSQL) + "/" + name + "\",\"service_key\":\"" + key + "\"}");
        JsonNode m = awaitMigration(created, "complete");
        made.add(new Object[]{DbKind.POSTGRES, Identifiers.nameFor(m.at("/database/project_id").asText())});
        awaitMigration(connected, "complete");
        String url = tenant.http().get("/v1/projects/" + m.get("project_id").asText()).json().at("/data/url").asText();
        String databaseUrl = app(url, "/info").get("database_url").asText();
        secrets.add(DbAddress.parse(databaseUrl).password());

        String dump = StoreDump.text(server.slipway().database().dataSource());
        assertThat(dump).as("the dump has the rows").contains(m.at("/database/project_id").asText()).contains("v1:");
        for (String secret : secrets) assertThat(dump).as("store dump").doesNotContain(secret);
        for (var file : StoreDump.files(server.store().dataDir()).entrySet()) {
            String text = new String(file.getValue(), StandardCharsets.ISO_8859_1);
            for (String secret : secrets) {
                assertThat(text.contains(secret)).as(file.getKey() + " holds a secret in plain text").isFalse();
            }
        }
    }
}
