package dev.slipway.operator;

import dev.slipway.accounts.AccountStore;
import dev.slipway.config.ServerConfig;
import dev.slipway.config.StoreSettings;
import dev.slipway.core.Env;
import dev.slipway.core.MicrosClock;
import dev.slipway.isolation.AccountAdmission;
import dev.slipway.isolation.ServersWithoutSandbox;
import dev.slipway.store.Database;
import picocli.CommandLine.Option;

import java.nio.file.Path;

/** Where the store is: shared by the server and the admin commands, so both see the same data. */
public final class StoreOptions {
    @Option(names = "--data-dir",
            description = "Data directory: embedded store, artifacts, workspaces (env SLIPWAY_DATA_DIR; default: ./.slipway)")
    public Path dataDir;

    @Option(names = "--database-url",
            description = "JDBC URL of a PostgreSQL store, e.g. jdbc:postgresql://127.0.0.1:5432/slipway?user=slipway "
                    + "(env SLIPWAY_DATABASE_URL; default: the embedded H2 file in the data dir)")
    public String databaseUrl;

    /** {@code --data-dir} when given, else the environment's. */
    Path dataDir(Env env) {
        return ServerConfig.dataDir(dataDir, env);
    }

    /** The store of {@code --database-url} or {@code SLIPWAY_DATABASE_URL}, else the embedded one in the data dir. */
    public Database open(int poolSize) {
        Env env = Env.system();
        String url = externalUrl(env);
        return Database.open(url != null ? url : Database.h2Url(dataDir(env)), poolSize);
    }

    /** {@code --database-url} or {@code SLIPWAY_DATABASE_URL}; null for the embedded store. */
    String externalUrl(Env env) {
        String url = databaseUrl != null ? databaseUrl : env.text(StoreSettings.DATABASE_URL, null);
        return url == null || url.isBlank() ? null : url;
    }

    /**
     * Which accounts may get an account, key or user now: while a server of the store runs without a working
     * sandbox, none but the first.
     */
    static AccountAdmission admission(Database db, AccountStore accounts) {
        return AccountAdmission.forOperator(accounts, new ServersWithoutSandbox(db.jdbi(), MicrosClock.system()));
    }
}
