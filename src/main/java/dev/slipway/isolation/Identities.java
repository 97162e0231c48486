package dev.slipway.isolation;

import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The unprivileged identity of each project: a uid (and the gid of the same number) no other project and
 * no user of the machine has. Kept in the store, so every server sharing it runs a project as the same uid.
 */
public final class Identities {
    /** Far above the uids a distribution hands out (and below the 2^31 some tools choke on). */
    public static final int FIRST_UID = 1_100_000_000;

    private final Jdbi jdbi;
    private final Map<String, Integer> cache = new ConcurrentHashMap<>();

    public Identities(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    public int uidOf(String projectId) {
        Integer known = cache.get(projectId);
        if (known != null) return known;
        int uid = load(projectId);
        cache.put(projectId, uid);
        return uid;
    }

    private int load(String projectId) {
        for (int attempt = 0; attempt < 20; attempt++) {
            Integer existing = jdbi.withHandle(h -> h.createQuery("SELECT uid FROM sandbox_identities WHERE project_id = :p")
                    .bind("p", projectId).mapTo(Integer.class).findOne().orElse(null));
            if (existing != null) return existing;
            try {
                // two servers may pick the same next uid: the unique key makes one of them try again
                return jdbi.inTransaction(h -> {
                    int next = h.createQuery("SELECT COALESCE(MAX(uid) + 1, :first) FROM sandbox_identities")
                            .bind("first", FIRST_UID).mapTo(Integer.class).one();
                    h.createUpdate("INSERT INTO sandbox_identities (project_id, uid) VALUES (:p, :u)")
                            .bind("p", projectId).bind("u", next).execute();
                    return next;
                });
            } catch (UnableToExecuteStatementException raced) {
                // another server assigned this project or this uid first: read again
            }
        }
        throw new IllegalStateException("could not assign a sandbox identity to " + projectId);
    }
}
