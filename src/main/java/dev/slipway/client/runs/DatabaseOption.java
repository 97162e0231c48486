package dev.slipway.client.runs;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.slipway.client.api.JsonTrees;
import dev.slipway.client.context.Context;
import dev.slipway.client.context.UsageException;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * {@code --database type=postgres,action=create} or {@code type=…,action=connect,url=…}; the service key
 * of a connect comes from {@code SLIPWAY_DATABASE_SERVICE_KEY}, never from the command line.
 */
final class DatabaseOption {
    static final String SERVICE_KEY_ENV = "SLIPWAY_DATABASE_SERVICE_KEY";
    private static final Set<String> FIELDS = Set.of("type", "action", "url");

    private DatabaseOption() {}

    static ObjectNode parse(String spec, Context ctx) {
        Map<String, String> fields = new LinkedHashMap<>();
        String current = null;
        for (String part : spec.split(",", -1)) {
            int eq = part.indexOf('=');
            String name = eq < 0 ? null : part.substring(0, eq).trim();
            if (name != null && name.equals("service_key")) {
                throw new UsageException("--database takes no service_key: set " + SERVICE_KEY_ENV + " instead (keys stay off the command line)");
            }
            if (name != null && FIELDS.contains(name)) {
                if (fields.containsKey(name)) throw new UsageException("--database gives " + name + " twice");
                fields.put(name, part.substring(eq + 1).trim());
                current = name;
            } else if ("url".equals(current)) {
                fields.put("url", fields.get("url") + "," + part); // a comma inside the url
            } else {
                throw new UsageException("--database takes type=…,action=create|connect[,url=…], not '" + spec + "'");
            }
        }
        String type = fields.get("type");
        String action = fields.get("action");
        if (type == null || type.isEmpty() || action == null || action.isEmpty()) {
            throw new UsageException("--database needs type=… and action=create|connect");
        }
        ObjectNode db = JsonTrees.object().put("type", type).put("action", action);
        switch (action) {
            case "create" -> {
                if (fields.containsKey("url")) throw new UsageException("--database action=create takes no url");
            }
            case "connect" -> {
                String url = fields.get("url");
                if (url == null || url.isEmpty()) throw new UsageException("--database action=connect needs url=…");
                String serviceKey = ctx.env(SERVICE_KEY_ENV);
                if (serviceKey == null) {
                    throw new UsageException("--database action=connect needs the service key in " + SERVICE_KEY_ENV);
                }
                db.put("url", url).put("service_key", serviceKey);
            }
            default -> throw new UsageException("--database action must be create or connect, not '" + action + "'");
        }
        return db;
    }
}
