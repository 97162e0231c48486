package dev.slipway.logs;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Collection;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Replaces secret values (env var values, passwords) in log lines with {@code ****}, in any letter case
 * and in their common encodings too: base64 (standard and URL-safe, with or without padding),
 * URL-encoded, JSON-escaped and hex. Longest first, so a secret that contains another is masked whole.
 * Values shorter than {@link #MIN_LENGTH} characters are not masked: every env value counts as a secret,
 * and masking {@code 1}, {@code on} or {@code prod} would garble every line while protecting nothing.
 */
public final class Masker {
    public static final int MIN_LENGTH = 6;

    private final Pattern pattern;
    private final int longest;
    private final List<String> forms;

    public Masker(Collection<String> secrets) {
        Set<String> forms = new LinkedHashSet<>();
        for (String s : secrets) {
            if (s == null || s.length() < MIN_LENGTH) continue;
            forms.addAll(forms(s));
            // a value with line breaks is printed over several log lines: each line of it is masked
            for (String part : s.split("\r?\n")) if (part.length() >= MIN_LENGTH) forms.addAll(forms(part));
        }
        List<String> longestFirst = forms.stream().filter(f -> f.length() >= MIN_LENGTH)
                .sorted(Comparator.comparingInt(String::length).reversed()).toList();
        this.longest = longestFirst.isEmpty() ? 0 : longestFirst.get(0).length();
        this.forms = longestFirst;
        this.pattern = longestFirst.isEmpty() ? null : Pattern.compile(
                String.join("|", longestFirst.stream().map(Pattern::quote).toList()),
                Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE);
    }

    public String mask(String line) {
        if (pattern == null || line == null) return line;
        Matcher m = pattern.matcher(line);
        return m.find() ? m.replaceAll("****") : line;
    }

    /**
     * Where to cut {@code text} (a line too long to keep whole) so that no secret is split: the end, less
     * what could be the start of a secret, and before any secret that would straddle that point. The part
     * after the cut goes on with the next chunk.
     */
    public int safeCut(String text) {
        if (pattern == null) return text.length();
        int cut = Math.max(0, text.length() - (longest - 1));
        Matcher m = pattern.matcher(text);
        while (m.find()) {
            if (m.start() < cut && m.end() > cut) return m.start();
        }
        return cut;
    }

    /**
     * True when the line ends with the first two or more characters of a secret (in any of its forms,
     * ignoring case): the next line might hold the rest, so this one should wait for it.
     */
    public boolean mayContinue(String line) {
        for (String f : forms) {
            for (int k = Math.min(f.length() - 1, line.length()); k >= 2; k--) {
                if (line.regionMatches(true, line.length() - k, f, 0, k)) return true;
            }
        }
        return false;
    }

    /** The end of a line that a secret continuing on the next line could start in. */
    public String tail(String line) {
        return line.length() < longest ? line : line.substring(line.length() - Math.max(0, longest - 1));
    }

    /**
     * Two consecutive lines with the part of a secret that spans their break masked in each:
     * {@code "key: sk-li"} and {@code "ve-123 end"} become {@code "key: ****"} and {@code "**** end"}.
     */
    public String[] maskAcross(String first, String second) {
        if (pattern == null || first.isEmpty() || second.isEmpty()) return new String[] {first, second};
        int from = Math.max(0, first.length() - (longest - 1));
        String joined = first.substring(from) + second.substring(0, Math.min(second.length(), longest - 1));
        int boundary = first.length() - from;
        Matcher m = pattern.matcher(joined);
        while (m.find()) {
            if (m.start() < boundary && m.end() > boundary) {
                return new String[] {first.substring(0, from + m.start()) + "****", "****" + second.substring(m.end() - boundary)};
            }
        }
        return new String[] {first, second};
    }

    private static List<String> forms(String s) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        String b64 = Base64.getEncoder().encodeToString(bytes);
        String url = Base64.getUrlEncoder().encodeToString(bytes);
        return List.of(s,
                b64, strip(b64), url, strip(url),
                URLEncoder.encode(s, StandardCharsets.UTF_8), URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20"),
                jsonEscaped(s), HexFormat.of().formatHex(bytes));
    }

    private static String strip(String padded) {
        int end = padded.length();
        while (end > 0 && padded.charAt(end - 1) == '=') end--;
        return padded.substring(0, end);
    }

    private static String jsonEscaped(String s) {
        StringBuilder out = new StringBuilder(s.length() + 8);
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
                    else out.append(c);
                }
            }
        }
        return out.toString();
    }
}
