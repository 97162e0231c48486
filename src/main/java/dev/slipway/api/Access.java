package dev.slipway.api;

import dev.slipway.auth.Principal;

import java.util.Optional;
import java.util.function.Function;

/** The spec's rule: another account's resource is 403, a resource that exists nowhere is 404. */
public final class Access {
    private Access() {}

    public static <T> T owned(Principal principal, Optional<T> found, Function<T, String> owner, String kind, String id) {
        T value = found.orElseThrow(() -> ApiException.notFound(kind + " " + id + " not found"));
        if (!owner.apply(value).equals(principal.accountId())) {
            throw ApiException.forbidden("This API key has no access to " + kind.toLowerCase() + " " + id);
        }
        return value;
    }
}
