package dev.slipway.backup;

import dev.slipway.secrets.SecretBox;
import dev.slipway.store.EmbeddedStore;

import java.util.List;

/** Where things are in a backup file and in the data dir it comes from or goes to. */
final class Layout {
    /** The store's dump: H2's own backup (a zip of its file) or pg_dump's SQL. */
    static final String H2_DUMP = "store/h2.zip";
    static final String POSTGRES_DUMP = "store/postgres.sql";
    /** The dumps of the databases Slipway made for apps, one {@code <id>.sql} each. */
    static final String DATABASES = "databases/";
    private static final java.util.regex.Pattern DUMP = java.util.regex.Pattern.compile("databases/[A-Za-z0-9_]{1,60}\\.sql");
    /** The data dir's files and folders under this prefix. */
    static final String DATA = "data/";
    /**
     * What of the data dir a backup keeps: the keys, this node's identity (the store's rows of its apps name it), the
     * builds apps run from, the toolchains they run on and the uploads zip projects redeploy. Workspaces and caches
     * are made again.
     */
    static final List<String> KEPT = List.of(SecretBox.KEY_FILE, EmbeddedStore.PASSWORD_FILE, "node-id", "artifacts",
            "toolchains", "uploads");

    private Layout() {}

    /** Whether a name in a backup file is one a restore may write: under a known place, no way out of it. */
    static boolean allowed(String name) {
        if (name.equals(Manifest.NAME) || name.equals(H2_DUMP) || name.equals(POSTGRES_DUMP)) return true;
        if (DUMP.matcher(name).matches()) return true;
        if (!name.startsWith(DATA) || name.contains("\\") || name.contains("\0")) return false;
        String rest = name.substring(DATA.length());
        for (String part : rest.split("/", -1)) {
            if (part.isEmpty() || part.equals(".") || part.equals("..")) return false;
        }
        String top = rest.split("/", 2)[0];
        return KEPT.contains(top);
    }
}
