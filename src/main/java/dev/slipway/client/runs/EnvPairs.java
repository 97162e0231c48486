package dev.slipway.client.runs;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.slipway.client.context.UsageException;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/** {@code --env KEY=VALUE} options into a map (the value may contain '=' and may be empty). */
final class EnvPairs {
    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private EnvPairs() {}

    static Map<String, String> parse(List<String> pairs) {
        Map<String, String> out = new LinkedHashMap<>();
        if (pairs == null) return out;
        for (String pair : pairs) {
            int eq = pair.indexOf('=');
            if (eq < 0) throw new UsageException("--env takes KEY=VALUE, not '" + pair + "'");
            String name = pair.substring(0, eq);
            if (!NAME.matcher(name).matches()) {
                throw new UsageException("--env " + (name.isEmpty() ? "needs a name before '='" : "name '" + name
                        + "' is not a variable name (letters, digits and '_', not starting with a digit)"));
            }
            if (out.put(name, pair.substring(eq + 1)) != null) {
                throw new UsageException("--env " + name + " is given twice");
            }
        }
        return out;
    }

    /** The pairs as the request's {@code env_vars} (left out when there are none). */
    static void put(ObjectNode body, Map<String, String> vars) {
        if (vars.isEmpty()) return;
        ObjectNode envVars = body.putObject("env_vars");
        vars.forEach(envVars::put);
    }
}
