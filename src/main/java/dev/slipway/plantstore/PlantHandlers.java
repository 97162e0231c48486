package dev.slipway.plantstore;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.AccountLock;
import dev.slipway.accounts.Tier;
import dev.slipway.api.Gate;
import dev.slipway.auth.Authenticator;
import dev.slipway.auth.Principal;
import dev.slipway.core.Json;
import dev.slipway.ratelimit.Decision;
import io.javalin.http.Context;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;

import java.io.IOException;
import java.io.InputStream;
import java.time.Clock;
import java.util.Optional;

/**
 * {@code POST /sandbox/plants}: the plant-store sample API, with a Slipway API key as its bearer
 * token and its own flat error shape. Plants are stored per account; an id can be used once.
 */
public final class PlantHandlers {
    static final String PRINCIPAL = "sandbox.principal";
    private static final int MAX_BODY = 64 * 1024;

    private final Authenticator authenticator;
    private final Gate gate;
    private final Jdbi jdbi;
    private final Clock clock;

    /** @param gate the API's rate limiter: the sandbox counts against the same per-account (or per-address) limit */
    public PlantHandlers(Authenticator authenticator, Gate gate, Jdbi jdbi, Clock clock) {
        this.authenticator = authenticator;
        this.gate = gate;
        this.jdbi = jdbi;
        this.clock = clock;
    }

    public void authenticate(Context ctx) {
        if (!ctx.path().startsWith("/sandbox/")) return;
        boolean open = ctx.path().equals("/sandbox/openapi.json");
        Optional<Principal> p = open ? Optional.empty() : authenticator.authenticate(ctx.header("Authorization"));
        Decision decision = gate.count(ctx, p);
        if (!decision.allowed()) throw new PlantError(429, Gate.limitMessage(decision));
        if (open) return;
        ctx.attribute(PRINCIPAL, p.orElseThrow(
                () -> new PlantError(401, "Missing or invalid bearer token: send Authorization: Bearer <API_KEY>")));
    }

    public void create(Context ctx) {
        Principal principal = ctx.attribute(PRINCIPAL);
        JsonNode body = read(ctx);
        JsonNode id = body.get("id");
        if (id == null || id.isNull()) throw PlantError.badRequest("id is required");
        if (!id.isIntegralNumber() || !id.canConvertToLong()) {
            throw PlantError.badRequest("id must be an integer (int64)");
        }
        JsonNode name = body.get("name");
        if (name == null || name.isNull()) throw PlantError.badRequest("name is required");
        if (!name.isTextual()) throw PlantError.badRequest("name must be a string");
        if (name.textValue().length() > 1000) throw PlantError.badRequest("name must be at most 1000 characters");
        JsonNode tag = body.get("tag");
        if (tag != null && !tag.isNull() && !tag.isTextual()) throw PlantError.badRequest("tag must be a string");
        if (tag != null && tag.isTextual() && tag.textValue().length() > 1000) throw PlantError.badRequest("tag must be at most 1000 characters");
        Plant plant = new Plant(name.textValue(), tag == null || tag.isNull() ? null : tag.textValue());
        Tier tier = principal.account().tier();
        boolean kept;
        try {
            kept = jdbi.inTransaction(h -> {
                // creates sent at the same time count one after the other: together they cannot pass the tier's number
                AccountLock.hold(h, principal.accountId());
                long count = h.createQuery("SELECT COUNT(*) FROM sandbox_plants WHERE account_id = :a")
                        .bind("a", principal.accountId()).mapTo(Long.class).one();
                if (count >= tier.plants()) return false;
                h.createUpdate("""
                                INSERT INTO sandbox_plants (account_id, id, name, tag, created_at) VALUES (:a, :id, :n, :t, :at)""")
                        .bind("a", principal.accountId()).bind("id", id.longValue()).bind("n", plant.name())
                        .bind("t", plant.tag()).bind("at", clock.instant()).execute();
                return true;
            });
        } catch (UnableToExecuteStatementException duplicate) {
            if (exists(principal.accountId(), id.longValue())) {
                throw PlantError.badRequest("a plant with id " + id.longValue() + " already exists");
            }
            throw duplicate;
        }
        if (!kept) throw new PlantError(429, "the " + tier.label() + " tier keeps " + tier.plants() + " plants per account");
        ctx.status(200).json(plant);
    }

    private boolean exists(String account, long id) {
        return jdbi.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM sandbox_plants WHERE account_id = :a AND id = :id")
                .bind("a", account).bind("id", id).mapTo(Long.class).one()) > 0;
    }

    private static JsonNode read(Context ctx) {
        String type = ctx.header("Content-Type");
        if (type == null || !type.toLowerCase().split(";")[0].trim().equals("application/json")) {
            throw PlantError.badRequest("Content-Type must be application/json");
        }
        byte[] bytes;
        try (InputStream in = ctx.req().getInputStream()) {
            bytes = in.readNBytes(MAX_BODY + 1);
        } catch (IOException e) {
            throw PlantError.badRequest("the body could not be read");
        }
        if (bytes.length > MAX_BODY) throw PlantError.badRequest("the body is larger than " + MAX_BODY + " bytes");
        JsonNode node;
        try {
            node = bytes.length == 0 ? null : Json.MAPPER.readTree(bytes);
        } catch (JacksonException e) {
            throw PlantError.badRequest("the body is not valid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw PlantError.badRequest("the body could not be read");
        }
        if (node == null || !node.isObject()) throw PlantError.badRequest("the body must be a JSON object (NewPlant)");
        return node;
    }
}
