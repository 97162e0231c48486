package dev.slipway.users;

import java.time.Instant;

/** A person who signs in to the dashboard of one account. The hash never leaves the store's classes. */
public record User(String id, String accountId, String email, String passwordHash, Instant createdAt) {
    @Override
    public String toString() {
        return "User[" + id + ", " + email + ", account " + accountId + "]";
    }
}
