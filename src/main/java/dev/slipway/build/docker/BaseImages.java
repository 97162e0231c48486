package dev.slipway.build.docker;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The base images a Dockerfile names in its {@code FROM} lines, which the platform pulls before the build (the build
 * itself runs with pulling off): not {@code scratch}, not an earlier stage's name; {@code ARG}s declared before the
 * first {@code FROM} are replaced by their defaults, as the builder would.
 */
final class BaseImages {
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?}|\\$([A-Za-z_][A-Za-z0-9_]*)");

    private BaseImages() {}

    static List<String> of(String dockerfile) {
        Map<String, String> args = new LinkedHashMap<>();
        Set<String> stages = new LinkedHashSet<>();
        Set<String> bases = new LinkedHashSet<>();
        boolean seenFrom = false;
        for (String line : instructions(dockerfile)) {
            String[] words = line.trim().split("\\s+");
            if (words.length == 0 || words[0].isEmpty()) continue;
            String keyword = words[0].toUpperCase(Locale.ROOT);
            if (keyword.equals("ARG") && !seenFrom && words.length > 1) {
                int eq = words[1].indexOf('=');
                if (eq > 0) args.put(words[1].substring(0, eq), unquote(words[1].substring(eq + 1)));
                else args.putIfAbsent(words[1], "");
            } else if (keyword.equals("FROM")) {
                seenFrom = true;
                List<String> rest = new ArrayList<>();
                for (int i = 1; i < words.length; i++) if (!words[i].startsWith("--")) rest.add(words[i]);
                if (rest.isEmpty()) continue;
                String image = substitute(rest.getFirst(), args);
                if (!image.equalsIgnoreCase("scratch") && !stages.contains(image.toLowerCase(Locale.ROOT))) bases.add(image);
                if (rest.size() >= 3 && rest.get(1).equalsIgnoreCase("AS")) stages.add(rest.get(2).toLowerCase(Locale.ROOT));
            }
        }
        return List.copyOf(bases);
    }

    /** The Dockerfile's instructions: comments dropped, continued lines joined. */
    private static List<String> instructions(String text) {
        List<String> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String raw : text.split("\\R")) {
            String line = raw.stripLeading();
            if (line.startsWith("#")) continue;
            if (raw.stripTrailing().endsWith("\\")) {
                String kept = raw.stripTrailing();
                current.append(kept, 0, kept.length() - 1).append(' ');
                continue;
            }
            current.append(raw);
            out.add(current.toString());
            current.setLength(0);
        }
        if (!current.isEmpty()) out.add(current.toString());
        return out;
    }

    private static String substitute(String word, Map<String, String> args) {
        Matcher m = VARIABLE.matcher(word);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String name = m.group(1) != null ? m.group(1) : m.group(3);
            String value = args.getOrDefault(name, "");
            if (value.isEmpty() && m.group(2) != null) value = m.group(2);
            m.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        m.appendTail(out);
        return out.toString();
    }

    private static String unquote(String v) {
        return v.length() >= 2 && (v.startsWith("\"") && v.endsWith("\"") || v.startsWith("'") && v.endsWith("'"))
                ? v.substring(1, v.length() - 1) : v;
    }
}
