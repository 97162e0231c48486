package dev.slipway.appconfig;

import org.tomlj.TomlArray;
import org.tomlj.TomlPosition;
import org.tomlj.TomlTable;

import java.util.List;
import java.util.Set;

/** One table of the file being checked: typed reads of its keys, each mistake recorded at its key's line. */
final class Section {
    private final TomlTable table;
    private final String name;
    private final List<ConfigProblem> problems;
    private final int line;

    Section(TomlTable table, String name, int line, List<ConfigProblem> problems) {
        this.table = table;
        this.name = name;
        this.line = line;
        this.problems = problems;
    }

    String name() { return name; }

    int line() { return line; }

    Set<String> keys() { return table.keySet(); }

    /** Records every key not in {@code allowed} as unknown. */
    void only(Set<String> allowed) {
        for (String key : table.keySet()) {
            if (!allowed.contains(key)) problem(key, "unknown key `" + key + "`" + where() + " (allowed: "
                    + String.join(", ", allowed.stream().sorted().toList()) + ")");
        }
    }

    int lineOf(String key) {
        TomlPosition at = table.inputPositionOf(List.of(key));
        return at == null ? line : at.line();
    }

    void problem(String key, String message) {
        problems.add(new ConfigProblem(lineOf(key), message));
    }

    private String where() {
        return name.isEmpty() ? "" : " in " + name;
    }

    private String label(String key) {
        return (name.isEmpty() ? "" : name + ".") + key;
    }

    String string(String key, boolean required, int maxLength) {
        Object v = table.get(List.of(key));
        if (v == null) {
            if (required) problems.add(new ConfigProblem(line, label(key) + " is required"));
            return null;
        }
        if (!(v instanceof String s)) {
            problem(key, label(key) + " must be a string");
            return null;
        }
        if (s.isBlank() && required) {
            problem(key, label(key) + " must not be empty");
            return null;
        }
        if (s.length() > maxLength) {
            problem(key, label(key) + " must be at most " + maxLength + " characters");
            return null;
        }
        return s;
    }

    Integer integer(String key, int min, int max) {
        Object v = table.get(List.of(key));
        if (v == null) return null;
        if (!(v instanceof Long n)) {
            problem(key, label(key) + " must be an integer");
            return null;
        }
        if (n < min || n > max) {
            problem(key, label(key) + " must be between " + min + " and " + max + ", got " + n);
            return null;
        }
        return n.intValue();
    }

    Boolean bool(String key) {
        Object v = table.get(List.of(key));
        if (v == null) return null;
        if (!(v instanceof Boolean b)) {
            problem(key, label(key) + " must be true or false");
            return null;
        }
        return b;
    }

    /** The sub-table {@code key}, or null (absent, or not a table: recorded). */
    Section table(String key) {
        Object v = table.get(List.of(key));
        if (v == null) return null;
        if (!(v instanceof TomlTable t)) {
            problem(key, label(key) + " must be a table ([" + label(key) + "])");
            return null;
        }
        return new Section(t, label(key), lineOf(key), problems);
    }

    /** The tables of the array {@code key} ({@code [[key]]}), or an empty list. */
    List<Section> tables(String key) {
        Object v = table.get(List.of(key));
        if (v == null) return List.of();
        if (!(v instanceof TomlArray a) || a.toList().stream().anyMatch(e -> !(e instanceof TomlTable))) {
            problem(key, label(key) + " must be an array of tables ([[" + label(key) + "]])");
            return List.of();
        }
        List<Section> out = new java.util.ArrayList<>();
        for (int i = 0; i < a.size(); i++) {
            TomlPosition at = a.inputPositionOf(i);
            out.add(new Section(a.getTable(i), label(key) + "[" + i + "]", at == null ? lineOf(key) : at.line(), problems));
        }
        return out;
    }
}
