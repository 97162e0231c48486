package dev.slipway.databases;

import java.time.Instant;

/**
 * A row of {@code databases}. {@code secretEnc} is the sealed password (create) or service_key
 * (connect); null once dropped.
 */
record ProjectDatabase(String id, String accountId, String projectId, String migrationId, DbKind kind, String action,
                       String host, int port, String name, String user, String options, String secretEnc,
                       DatabaseState state, Instant createdAt) {
    boolean created() {
        return "create".equals(action);
    }

    /** Where it is and who connects, with the given password. */
    DbAddress address(String password) {
        return new DbAddress(kind, host, port, name, user, password, DbAddress.parseQuery(options));
    }

    @Override
    public String toString() {
        return "ProjectDatabase[" + id + " " + kind.label() + " " + action + " " + host + ":" + port + "/" + name
                + " user " + user + " " + state.label() + "]";
    }
}
