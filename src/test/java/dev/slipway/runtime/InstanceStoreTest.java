package dev.slipway.runtime;

import dev.slipway.core.MicrosClock;
import dev.slipway.net.DatabaseEndpoint;
import dev.slipway.runtime.local.RuntimeFixture;
import dev.slipway.secrets.SecretBox;
import dev.slipway.store.Database;
import dev.slipway.store.Dialect;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.TestStore;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a restarted server runs again: the app's spec as it was started, its database as the platform recorded it
 * included, so a recovered app in the sandbox keeps the forward to its database (and gets no other).
 */
@EndToEnd
class InstanceStoreTest {
    @Test
    void aStoredInstanceComesBackWithItsDatabase() throws Exception {
        try (TestStore store = TestStore.create(Dialect.H2); Database db = Database.open(store.jdbcUrl(), 2)) {
            InstanceStore instances = new InstanceStore(db.jdbi(), SecretBox.fromBase64(RuntimeFixture.SECRET_KEY),
                    MicrosClock.system(), "node_a");
            AppSpec plain = TestApps.spec("v1", Map.of("DATABASE_URL", "postgres://u:p@127.0.0.1:5432/own"));
            DatabaseEndpoint database = new DatabaseEndpoint("127.0.0.1", 5432, true);
            AppSpec withDatabase = new AppSpec("dep_withdb", "prj_test", TestApps.nodeArtifact(),
                    Map.of("DATABASE_URL", "postgres://u:p@127.0.0.1:5432/slw_x"), Set.of("p"), InstanceType.STARTER, database);
            instances.save(plain, 40001);
            instances.save(withDatabase, 40002);
            assertThat(instances.find(plain.deploymentId()).orElseThrow().spec().database()).isNull();
            assertThat(instances.find("dep_withdb").orElseThrow().spec()).isEqualTo(withDatabase);

            // a row written before the database was kept: read, without one
            String before = SecretBox.fromBase64(RuntimeFixture.SECRET_KEY).encrypt("{\"env\":{\"A\":\"b\"},\"secrets\":[]}");
            db.jdbi().useHandle(h -> h.createUpdate("UPDATE runtime_instances SET env_enc = :e WHERE deployment_id = 'dep_withdb'")
                    .bind("e", before).execute());
            AppSpec old = instances.find("dep_withdb").orElseThrow().spec();
            assertThat(old.env()).isEqualTo(Map.of("A", "b"));
            assertThat(old.database()).isNull();
        }
    }
}
