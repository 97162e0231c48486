package dev.slipway.config;

import dev.slipway.core.Setting;

/**
 * The store and what is kept in it.
 *
 * @param databaseUrl          JDBC URL of the store; null means the embedded H2 file in the data dir
 * @param poolSize             connections to the store
 * @param secretKey            base64 AES key for secrets at rest; null means a key file in the data dir
 * @param createDefaultAccount a first start on an empty store makes an account, a key and a dashboard user
 */
public record StoreSettings(String databaseUrl, int poolSize, String secretKey, boolean createDefaultAccount) {
    public static final Setting DATA_DIR = Setting.flag("--data-dir", "SLIPWAY_DATA_DIR", "`./.slipway`",
            "embedded store, artifacts, workspaces, secret key file");
    public static final Setting DATABASE_URL = Setting.flag("--database-url", "SLIPWAY_DATABASE_URL", "embedded H2 file in the data dir",
            "JDBC URL of a PostgreSQL store, e.g. `jdbc:postgresql://127.0.0.1:5432/slipway?user=slipway&password=…`");
    public static final Setting POOL_SIZE = Setting.flag("--db-pool-size", "SLIPWAY_DB_POOL_SIZE", "`10`", "connections to the store");
    public static final Setting SECRET_KEY = Setting.env("SLIPWAY_SECRET_KEY", "a key file `secret.key` (mode 600) created in the data dir",
            "base64 of 32 bytes: the AES-256-GCM key that encrypts env var values at rest. Every server on one PostgreSQL "
                    + "must use the same key.");
    /** The {@code --data-dir} default when neither the flag nor the variable is given. */
    public static final String DEFAULT_DATA_DIR = ".slipway";
}
