package dev.slipway.dashboard;

import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The dashboard's only way to make HTML: {@link #fmt} escapes every argument unless it is already
 * {@link Safe} (made by this class), so text from the store or the request can never become markup.
 */
public final class Html {
    /** Markup that is safe to insert as is. */
    public record Safe(String html) {
        @Override
        public String toString() { return html; }
    }

    public static final Safe EMPTY = new Safe("");

    private Html() {}

    public static String esc(String s) {
        if (s == null) return "";
        StringBuilder out = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }

    /** {@code template} (trusted, written here) with {@code %s} placeholders filled by escaped arguments. */
    public static Safe fmt(String template, Object... args) {
        Object[] escaped = Arrays.stream(args)
                .map(a -> a instanceof Safe s ? s.html() : esc(a == null ? "" : String.valueOf(a))).toArray();
        return new Safe(template.formatted(escaped));
    }

    public static <T> Safe each(List<T> items, Function<T, Safe> render) {
        return new Safe(items.stream().map(render).map(Safe::html).collect(Collectors.joining()));
    }

    public static Safe join(Safe... parts) {
        return new Safe(Arrays.stream(parts).map(Safe::html).collect(Collectors.joining()));
    }

    public static Safe when(boolean condition, Safe then) {
        return condition ? then : EMPTY;
    }
}
