package dev.slipway.auth;

import dev.slipway.accounts.AccountStore;
import dev.slipway.core.Digests;
import dev.slipway.core.Ids;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.mapper.RowMapper;

import java.security.SecureRandom;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * API keys: {@code sk_} + 40 base62 characters (238 bits). Only a SHA-256 of the key is stored;
 * a high-entropy secret needs no slow hash, and a fast one keeps every request's lookup cheap.
 */
public final class KeyStore {
    static final String KEY_PREFIX = "sk_";
    private static final char[] BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".toCharArray();
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final RowMapper<ApiKey> MAPPER = (rs, ctx) -> new ApiKey(
            rs.getString("id"), rs.getString("account_id"), rs.getString("name"), rs.getString("prefix"),
            instant(rs.getTimestamp("created_at")), instant(rs.getTimestamp("last_used_at")),
            instant(rs.getTimestamp("revoked_at")));

    private final Jdbi jdbi;
    private final Clock clock;
    private final Ids ids;

    public KeyStore(Jdbi jdbi, Clock clock) {
        this.jdbi = jdbi;
        this.clock = clock;
        this.ids = new Ids(clock);
    }

    public IssuedKey create(String accountId, String name) {
        StringBuilder secret = new StringBuilder(KEY_PREFIX);
        for (int i = 0; i < 40; i++) secret.append(BASE62[RANDOM.nextInt(BASE62.length)]);
        String plain = secret.toString();
        ApiKey key = new ApiKey(ids.next("key"), accountId, name == null ? "default" : name,
                plain.substring(0, 10), clock.instant(), null, null);
        jdbi.useHandle(h -> h.createUpdate("""
                        INSERT INTO api_keys (id, account_id, name, prefix, key_hash, created_at)
                        VALUES (:id, :account, :name, :prefix, :hash, :at)""")
                .bind("id", key.id()).bind("account", accountId).bind("name", key.name())
                .bind("prefix", key.prefix()).bind("hash", hash(plain)).bind("at", key.createdAt())
                .execute());
        return new IssuedKey(key, plain);
    }

    /** The active key whose secret this is with its account, in one query (every uncached request asks). */
    public Optional<Principal> principal(String secret) {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT a.*, k.id AS key_id FROM api_keys k JOIN accounts a ON a.id = k.account_id
                        WHERE k.key_hash = :hash AND k.revoked_at IS NULL""")
                .bind("hash", hash(secret))
                .map((rs, ctx) -> new Principal(AccountStore.MAPPER.map(rs, ctx), rs.getString("key_id")))
                .findOne());
    }

    public Optional<ApiKey> find(String id) {
        return jdbi.withHandle(h -> h.createQuery("SELECT * FROM api_keys WHERE id = :id")
                .bind("id", id).map(MAPPER).findOne());
    }

    public List<ApiKey> list(String accountId) {
        return jdbi.withHandle(h -> h.createQuery("SELECT * FROM api_keys WHERE account_id = :a ORDER BY created_at, id")
                .bind("a", accountId).map(MAPPER).list());
    }

    /** Revokes a key; false when there is no such active key. */
    public boolean revoke(String id) {
        return jdbi.withHandle(h -> h.createUpdate("UPDATE api_keys SET revoked_at = :at WHERE id = :id AND revoked_at IS NULL")
                .bind("at", clock.instant()).bind("id", id).execute()) == 1;
    }

    public void touch(String id, Instant at) {
        jdbi.useHandle(h -> h.createUpdate("UPDATE api_keys SET last_used_at = :at WHERE id = :id")
                .bind("at", at).bind("id", id).execute());
    }

    static String hash(String secret) {
        return Digests.sha256Hex(secret);
    }

    private static Instant instant(Timestamp ts) {
        return ts == null ? null : ts.toInstant();
    }
}
