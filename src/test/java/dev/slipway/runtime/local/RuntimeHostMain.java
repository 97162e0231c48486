package dev.slipway.runtime.local;

import dev.slipway.core.MicrosClock;
import dev.slipway.isolation.Unconfined;
import dev.slipway.logs.LogSink;
import dev.slipway.runtime.AppSpec;
import dev.slipway.runtime.Instance;
import dev.slipway.runtime.InstanceStore;
import dev.slipway.runtime.InstanceType;
import dev.slipway.runtime.NodeId;
import dev.slipway.runtime.RuntimeSettings;
import dev.slipway.runtime.TestApps;
import dev.slipway.secrets.SecretBox;
import dev.slipway.store.Database;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A stand-in server for the recovery test, run in its own JVM: starts apps on a store, prints where
 * they listen, then waits to be killed with SIGKILL.
 * Args: jdbc url, data dir, number of apps.
 */
public final class RuntimeHostMain {
    public static void main(String[] args) throws Exception {
        Database db = Database.open(args[0], 2);
        InstanceStore store = new InstanceStore(db.jdbi(), SecretBox.fromBase64(RuntimeFixture.SECRET_KEY),
                MicrosClock.system(), NodeId.load(Path.of(args[1])));
        LocalProcessRuntime runtime = new LocalProcessRuntime(store, RuntimeSettings.defaults(List.of("us-east-1")),
                MicrosClock.system(), System.getenv(), new Unconfined(), Path.of(args[1]).resolve("output"));
        int n = Integer.parseInt(args[2]);
        for (int i = 0; i < n; i++) {
            AppSpec spec = new AppSpec("dep_recover_" + i, "prj_recover", TestApps.nodeArtifact(),
                    Map.of("VERSION", "v" + i, "SPAWN_CHILD", "1", "SECRET_TOKEN", "recover-secret-" + i),
                    Set.of("recover-secret-" + i), InstanceType.STARTER);
            Instance instance = runtime.start(spec, LogSink.DISCARD);
            System.out.println("READY " + instance.deploymentId() + " " + instance.port() + " " + instance.pid());
        }
        System.out.println("ALL READY");
        System.out.flush();
        Thread.currentThread().join();
    }
}
