package dev.slipway.projects;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.slipway.api.Body;
import dev.slipway.build.oci.ImageName;
import dev.slipway.build.RegistryLogin;

import java.util.Set;
import java.util.regex.Pattern;

/**
 * The request's {@code registry_auth}: the project's login to the registry its images come from (its prebuilt image,
 * its Dockerfile's base images). {@code registry} defaults to the image's; the password is a secret.
 */
final class RegistryAuthInput {
    private static final Set<String> FIELDS = Set.of("registry", "username", "password");
    private static final Pattern REGISTRY = Pattern.compile("[A-Za-z0-9.-]{1,253}(:[0-9]{1,5})?");

    private RegistryAuthInput() {}

    /** @param image the project's image reference, or null when it builds from source */
    static RegistryLogin read(Body body, String image) {
        ObjectNode node = body.object("registry_auth", false);
        if (node == null) return null;
        for (var it = node.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!FIELDS.contains(f)) body.problem("registry_auth." + f, "is not a field of registry_auth");
        }
        String username = text(node, "username", body, 200, true);
        String password = text(node, "password", body, 4096, true);
        String registry = text(node, "registry", body, 260, false);
        if (registry == null && image != null) registry = ImageName.parse(image).map(ImageName::registry).orElse(null);
        if (registry == null) {
            body.problem("registry_auth.registry", "is required unless source is image (then it is the image's registry)");
        } else if (!REGISTRY.matcher(registry).matches()) {
            body.problem("registry_auth.registry", "must be a registry host, host[:port]");
        }
        return username == null || password == null || registry == null ? null : new RegistryLogin(registry, username, password);
    }

    private static String text(ObjectNode node, String field, Body body, int max, boolean required) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            if (required) body.problem("registry_auth." + field, "is required");
            return null;
        }
        if (!v.isTextual() || v.textValue().isEmpty() || v.textValue().length() > max) {
            body.problem("registry_auth." + field, "must be a string of 1 to " + max + " characters");
            return null;
        }
        return v.textValue();
    }
}
