package dev.slipway.source;

import org.jdbi.v3.core.Jdbi;

import java.time.Clock;
import java.util.Optional;

/** The SSH host keys of git hosts, recorded on first use (table {@code git_host_keys}). */
public final class HostKeyStore {
    private final Jdbi jdbi;
    private final Clock clock;

    public HostKeyStore(Jdbi jdbi, Clock clock) {
        this.jdbi = jdbi;
        this.clock = clock;
    }

    /** The key recorded for {@code host} ({@code host:port}), as an OpenSSH public key line. */
    public Optional<String> find(String host) {
        return jdbi.withHandle(h -> h.createQuery("SELECT public_key FROM git_host_keys WHERE host = :h")
                .bind("h", host).mapTo(String.class).findOne());
    }

    /** Records {@code key} for {@code host} unless one is recorded; answers the key recorded, which may be another. */
    public String recordFirst(String host, String key) {
        return jdbi.inTransaction(h -> {
            h.createUpdate("""
                            INSERT INTO git_host_keys (host, public_key, first_seen_at) SELECT :h, :k, :at
                            WHERE NOT EXISTS (SELECT 1 FROM git_host_keys WHERE host = :h)""")
                    .bind("h", host).bind("k", key).bind("at", clock.instant()).execute();
            return h.createQuery("SELECT public_key FROM git_host_keys WHERE host = :h").bind("h", host)
                    .mapTo(String.class).one();
        });
    }
}
