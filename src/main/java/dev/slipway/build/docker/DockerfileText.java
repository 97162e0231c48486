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
 * What the platform reads of a Dockerfile before building it: the base images its {@code FROM} lines name, which
 * the platform pulls (the build itself runs with pulling off), and the {@code ARG}s it declares, which the app's
 * variables of the same name fill.
 */
final class DockerfileText {
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?}|\\$([A-Za-z_][A-Za-z0-9_]*)");

    private final List<String> instructions;

    private DockerfileText(List<String> instructions) {
        this.instructions = instructions;
    }

    static DockerfileText parse(String dockerfile) {
        return new DockerfileText(instructions(dockerfile));
    }

    /**
     * The images the {@code FROM} lines name: not {@code scratch}, not an earlier stage's name; the {@code ARG}s
     * declared before the first {@code FROM} are replaced by {@code given} values, else by their defaults, as the
     * builder does.
     */
    List<String> baseImages(Map<String, String> given) {
        Map<String, String> args = new LinkedHashMap<>();
        Set<String> stages = new LinkedHashSet<>();
        Set<String> bases = new LinkedHashSet<>();
        boolean seenFrom = false;
        for (String[] words : words()) {
            String keyword = words[0].toUpperCase(Locale.ROOT);
            if (keyword.equals("ARG") && !seenFrom && words.length > 1) {
                int eq = words[1].indexOf('=');
                String name = eq > 0 ? words[1].substring(0, eq) : words[1];
                String value = given.containsKey(name) ? given.get(name) : eq > 0 ? unquote(words[1].substring(eq + 1)) : "";
                args.put(name, value);
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

    /** The names every {@code ARG} declares, in any stage ({@code ARG A=1 B} declares both). */
    Set<String> arguments() {
        Set<String> names = new LinkedHashSet<>();
        for (String[] words : words()) {
            if (!words[0].equalsIgnoreCase("ARG")) continue;
            for (int i = 1; i < words.length; i++) {
                int eq = words[i].indexOf('=');
                String name = eq > 0 ? words[i].substring(0, eq) : words[i];
                if (name.matches("[A-Za-z_][A-Za-z0-9_]*")) names.add(name);
            }
        }
        return names;
    }

    private List<String[]> words() {
        List<String[]> out = new ArrayList<>();
        for (String line : instructions) {
            String[] words = line.trim().split("\\s+");
            if (words.length > 0 && !words[0].isEmpty()) out.add(words);
        }
        return out;
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
