package dev.slipway.migrations;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.slipway.api.Body;

import java.util.Set;

/**
 * The request's {@code database} object, validated for shape; {@code DatabaseService.plan} then
 * checks it can work (provider configured, usable url) before anything is recorded.
 */
public record DatabaseRequest(String type, String action, String url, String serviceKey) {
    private static final Set<String> TYPES = Set.of("postgres", "mysql");
    private static final Set<String> ACTIONS = Set.of("create", "connect");

    static DatabaseRequest read(ObjectNode node, Body body) {
        String type = text(node, "type", body);
        String action = text(node, "action", body);
        if (type != null && !TYPES.contains(type)) body.problem("database.type", "must be postgres or mysql");
        if (action != null && !ACTIONS.contains(action)) body.problem("database.action", "must be create or connect");
        String url = node.hasNonNull("url") ? node.get("url").asText() : null;
        String key = node.hasNonNull("service_key") ? node.get("service_key").asText() : null;
        if ("connect".equals(action)) {
            if (url == null || url.isBlank()) body.problem("database.url", "is required when action is connect");
            if (key == null || key.isBlank()) body.problem("database.service_key", "is required when action is connect");
        } else if ("create".equals(action)) {
            if (url != null) body.problem("database.url", "is only for action connect (create makes a new database)");
            if (key != null) body.problem("database.service_key", "is only for action connect (create makes its own password)");
        }
        for (var it = node.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!Set.of("type", "action", "url", "service_key").contains(f)) body.problem("database." + f, "is not a field of database");
        }
        return new DatabaseRequest(type, action, url, key);
    }

    private static String text(ObjectNode node, String field, Body body) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            body.problem("database." + field, "is required");
            return null;
        }
        if (!v.isTextual()) {
            body.problem("database." + field, "must be a string");
            return null;
        }
        return v.textValue();
    }

    @Override
    public String toString() {
        return "DatabaseRequest[type=" + type + ", action=" + action + ", url=" + (url == null ? null : "<set>") + ", service_key=****]";
    }
}
