package dev.slipway.store;

import com.zaxxer.hikari.SQLExceptionOverride;

import java.sql.SQLException;

/**
 * A pooled connection whose store went away is dropped, not handed out again: the embedded store closes itself on an
 * I/O error (a full disk) with codes the pool does not know, and only new connections open it again.
 */
public final class EvictWhenAway implements SQLExceptionOverride {
    @java.lang.Override
    public SQLExceptionOverride.Override adjudicate(SQLException e) {
        return StoreFailure.unavailable(e).isPresent() ? SQLExceptionOverride.Override.MUST_EVICT
                : SQLExceptionOverride.Override.CONTINUE_EVICT;
    }
}
