package dev.slipway.runtime.local;

import dev.slipway.core.MicrosClock;
import dev.slipway.isolation.Unconfined;
import dev.slipway.runtime.Instance;
import dev.slipway.runtime.InstanceStore;
import dev.slipway.runtime.RuntimeSettings;
import dev.slipway.secrets.SecretBox;
import dev.slipway.store.Database;
import dev.slipway.store.Dialect;
import dev.slipway.testing.TestStore;

import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.UnaryOperator;

/** A LocalProcessRuntime over a fresh store; close() stops its apps and drops the store. */
public final class RuntimeFixture implements AutoCloseable {
    public static final String SECRET_KEY = Base64.getEncoder().encodeToString(new byte[32]);

    public final TestStore testStore;
    public final Database database;
    public final InstanceStore store;
    public final LocalProcessRuntime runtime;
    public final RuntimeSettings options;

    public RuntimeFixture(Dialect kind, UnaryOperator<RuntimeSettings> customize) {
        this(TestStore.create(kind), "node_" + UUID.randomUUID().toString().replace("-", ""), customize, Map.of());
    }

    public RuntimeFixture(TestStore testStore, String nodeId, UnaryOperator<RuntimeSettings> customize,
                          Map<String, String> extraServerEnv) {
        this.testStore = testStore;
        this.database = Database.open(testStore.jdbcUrl(), 4);
        this.store = new InstanceStore(database.jdbi(), SecretBox.fromBase64(SECRET_KEY), MicrosClock.system(), nodeId);
        this.options = customize.apply(RuntimeSettings.defaults(List.of("us-east-1")));
        var env = new HashMap<>(System.getenv());
        env.putAll(extraServerEnv);
        this.runtime = new LocalProcessRuntime(store, options, MicrosClock.system(), env, new Unconfined(),
                testStore.dataDir().resolve("output"));
    }

    public static RuntimeFixture h2() {
        return new RuntimeFixture(Dialect.H2, o -> o);
    }

    @Override
    public void close() {
        try {
            for (Instance i : runtime.list()) runtime.stop(i.deploymentId());
            runtime.close();
        } finally {
            database.close();
            testStore.close();
        }
    }
}
