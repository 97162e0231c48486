package dev.slipway.client.output;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.client.api.JsonTrees;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Human output: aligned columns, and {@code field  value} lines for one record. */
public final class Table {
    private final List<String> headers = new ArrayList<>();
    private final List<String> fields = new ArrayList<>();
    private final List<String[]> rows = new ArrayList<>();

    /** A column headed {@code header} that shows each record's {@code field}. */
    public Table column(String header, String field) {
        headers.add(header);
        fields.add(field);
        return this;
    }

    /** A row of the columns' fields of {@code record} ({@code -} for null). */
    public Table row(JsonNode record) {
        rows.add(fields.stream().map(field -> cell(record.get(field))).toArray(String[]::new));
        return this;
    }

    public void print(PrintStream out) {
        List<String[]> lines = new ArrayList<>();
        lines.add(headers.toArray(String[]::new));
        lines.addAll(rows);
        int columns = headers.size();
        int[] width = new int[columns];
        for (String[] row : lines) for (int i = 0; i < columns; i++) width[i] = Math.max(width[i], row[i].length());
        for (String[] row : lines) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < columns; i++) {
                if (i > 0) line.append("  ");
                line.append(i == columns - 1 ? row[i] : String.format("%-" + width[i] + "s", row[i]));
            }
            out.println(line.toString().stripTrailing());
        }
    }

    /** Every field of one record, one per line. */
    public static void record(PrintStream out, JsonNode record) {
        int width = 0;
        for (Map.Entry<String, JsonNode> e : record.properties()) width = Math.max(width, e.getKey().length());
        for (Map.Entry<String, JsonNode> e : record.properties()) {
            out.println(String.format("%-" + width + "s  %s", e.getKey(), cell(e.getValue())));
        }
    }

    static String cell(JsonNode v) {
        if (v == null || v.isNull()) return "-";
        if (v.isArray()) {
            List<String> items = new ArrayList<>();
            v.forEach(i -> items.add(cell(i)));
            return items.isEmpty() ? "-" : String.join(", ", items);
        }
        if (v.isObject()) return JsonTrees.compact(v);
        return Printable.of(v.asText());
    }
}
