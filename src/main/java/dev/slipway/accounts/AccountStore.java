package dev.slipway.accounts;

import dev.slipway.core.Ids;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.mapper.RowMapper;

import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

public final class AccountStore {
    private static final Pattern NAME = Pattern.compile("^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$");
    /** An {@code accounts} row, also read joined to another table's (an API key's). */
    public static final RowMapper<Account> MAPPER = (rs, ctx) -> new Account(
            rs.getString("id"), rs.getString("name"), Tier.parse(rs.getString("tier")),
            (Integer) rs.getObject("rate_limit"), rs.getTimestamp("created_at").toInstant());

    private final Jdbi jdbi;
    private final Clock clock;
    private final Ids ids;

    public AccountStore(Jdbi jdbi, Clock clock) {
        this.jdbi = jdbi;
        this.clock = clock;
        this.ids = new Ids(clock);
    }

    public Account create(String name, Tier tier, Integer rateLimit) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("account name must be 1-100 letters, digits, '_', '.' or '-'");
        }
        if (rateLimit != null && (rateLimit < 1 || rateLimit > 100_000_000)) {
            throw new IllegalArgumentException("rate limit must be between 1 and 100000000 requests per minute");
        }
        if (findByName(name).isPresent()) {
            throw new IllegalArgumentException("an account named '" + name + "' already exists");
        }
        Account account = new Account(ids.next("acct"), name, tier, rateLimit, clock.instant());
        jdbi.useHandle(h -> h.createUpdate(
                        "INSERT INTO accounts (id, name, tier, rate_limit, created_at) VALUES (:id, :name, :tier, :rl, :at)")
                .bind("id", account.id()).bind("name", name).bind("tier", tier.label())
                .bind("rl", rateLimit).bind("at", account.createdAt())
                .execute());
        return account;
    }

    public Optional<Account> find(String id) {
        return jdbi.withHandle(h -> h.createQuery("SELECT * FROM accounts WHERE id = :id")
                .bind("id", id).map(MAPPER).findOne());
    }

    /** The store's first account: the operator's own (the first start of a server makes it). */
    public Optional<Account> first() {
        return jdbi.withHandle(h -> h.createQuery("SELECT * FROM accounts ORDER BY created_at, id LIMIT 1").map(MAPPER).findOne());
    }

    public Optional<Account> findByName(String name) {
        return jdbi.withHandle(h -> h.createQuery("SELECT * FROM accounts WHERE name = :name")
                .bind("name", name).map(MAPPER).findOne());
    }

    public List<Account> list() {
        return jdbi.withHandle(h -> h.createQuery("SELECT * FROM accounts ORDER BY created_at, id").map(MAPPER).list());
    }

    public boolean isEmpty() {
        return jdbi.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM accounts").mapTo(Long.class).one()) == 0;
    }
}
