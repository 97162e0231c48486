package dev.slipway.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A JSON request body being validated: typed reads that collect every field's problem, then
 * {@link #check()} answers 400 with all of them in {@code details}.
 */
public final class Body {
    private final ObjectNode node;
    private final Map<String, String> problems;
    /** Before each field's name in a problem: {@code "<parent>."} for a {@link #nested} object's fields. */
    private final String prefix;

    public Body(ObjectNode node) {
        this(node, new LinkedHashMap<>(), "");
    }

    private Body(ObjectNode node, Map<String, String> problems, String prefix) {
        this.node = node;
        this.problems = problems;
        this.prefix = prefix;
    }

    public ObjectNode node() { return node; }

    public void problem(String field, String problem) {
        problems.putIfAbsent(prefix + field, problem);
    }

    /**
     * The object in {@code field} read as a body of its own, whose problems are this body's, named {@code field.<key>};
     * null when absent or null (a problem when {@code required}) or not an object (a problem).
     */
    public Body nested(String field, boolean required) {
        ObjectNode child = object(field, required);
        return child == null ? null : new Body(child, problems, prefix + field + ".");
    }

    public boolean has(String field) {
        return node.hasNonNull(field);
    }

    /** Refuses fields this endpoint does not know, so a typo is an error, not a silent default. */
    public void only(Set<String> known) {
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!known.contains(f)) problem(f, "is not a field of this request");
        }
    }

    public String string(String field, boolean required, int maxLength, Pattern pattern, String patternHint) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            if (required) problem(field, "is required");
            return null;
        }
        if (!v.isTextual()) {
            problem(field, "must be a string");
            return null;
        }
        String s = v.textValue();
        if (s.isEmpty() && required) {
            problem(field, "must not be empty");
            return null;
        }
        if (s.length() > maxLength) {
            problem(field, "must be at most " + maxLength + " characters");
            return null;
        }
        if (pattern != null && !pattern.matcher(s).matches()) {
            problem(field, patternHint);
            return null;
        }
        return s;
    }

    /** A string field that must be a URL (any scheme): null, with a problem recorded, when it is absent or not one. */
    public java.net.URI uri(String field, boolean required, int maxLength) {
        String raw = string(field, required, maxLength, null, null);
        if (raw == null) return null;
        try {
            return new java.net.URI(raw);
        } catch (java.net.URISyntaxException e) {
            problem(field, "is not a valid URL");
            return null;
        }
    }

    public String oneOf(String field, boolean required, Set<String> allowed) {
        String s = string(field, required, 100, null, null);
        if (s != null && !allowed.contains(s)) {
            problem(field, "must be one of " + String.join(", ", allowed.stream().sorted().toList()));
            return null;
        }
        return s;
    }

    /** {@code true} or {@code false}; null when absent or null. */
    public Boolean bool(String field) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) return null;
        if (!v.isBoolean()) {
            problem(field, "must be true or false");
            return null;
        }
        return v.booleanValue();
    }

    /** A whole number from {@code min} to {@code max}; null when absent or null. */
    public Integer integer(String field, int min, int max) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) return null;
        if (!v.isIntegralNumber() || !v.canConvertToInt() || v.intValue() < min || v.intValue() > max) {
            problem(field, "must be a whole number from " + min + " to " + max);
            return null;
        }
        return v.intValue();
    }

    /** A JSON object of string values; null when absent. */
    public Map<String, String> stringMap(String field, int maxEntries, Pattern keyPattern, String keyHint, int maxValueLength) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) return null;
        if (!v.isObject()) {
            problem(field, "must be an object of string values");
            return null;
        }
        if (v.size() > maxEntries) {
            problem(field, "must have at most " + maxEntries + " entries");
            return null;
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (var it = v.fields(); it.hasNext(); ) {
            var e = it.next();
            if (!keyPattern.matcher(e.getKey()).matches()) {
                problem(field + "." + e.getKey(), keyHint);
            } else if (!e.getValue().isTextual()) {
                problem(field + "." + e.getKey(), "must be a string");
            } else if (e.getValue().textValue().length() > maxValueLength) {
                problem(field + "." + e.getKey(), "must be at most " + maxValueLength + " characters");
            } else {
                out.put(e.getKey(), e.getValue().textValue());
            }
        }
        return out;
    }

    public ObjectNode object(String field, boolean required) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            if (required) problem(field, "is required");
            return null;
        }
        if (!v.isObject()) {
            problem(field, "must be an object");
            return null;
        }
        return (ObjectNode) v;
    }

    /** A whole number from {@code min} to {@code max}, required: {@code min} after recording the problem when it is not. */
    public int requiredInteger(String field, int min, int max) {
        if (!has(field)) problem(field, "is required");
        Integer v = integer(field, min, max);
        return v == null ? min : v;
    }

    public void check() {
        if (!problems.isEmpty()) {
            String first = problems.entrySet().iterator().next().getKey();
            throw ApiException.invalid("Invalid request body: " + first + " " + problems.get(first)
                    + (problems.size() > 1 ? " (and " + (problems.size() - 1) + " more)" : ""), Map.copyOf(problems));
        }
    }
}
