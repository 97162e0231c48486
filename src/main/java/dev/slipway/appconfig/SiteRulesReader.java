package dev.slipway.appconfig;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads a static site's {@code [[headers]]} and {@code [[redirects]]}. What the router will write into an answer is
 * checked here: a header name is an HTTP token and not one that frames the answer, a value and a target hold no
 * control character (no header of one's own through a line break), a path pattern is a path with at most a last
 * {@code *}.
 */
final class SiteRulesReader {
    static final int MAX_RULES = 100;
    private static final Set<Integer> REDIRECTS = Set.of(301, 302, 307, 308);
    private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}");
    private static final Pattern PATTERN = Pattern.compile("/[^*\\s\\p{Cntrl}]*\\*?");
    private static final Pattern TARGET = Pattern.compile("(/(?!/)|https?://)[^\\s\\p{Cntrl}]*");
    /** Headers the router frames the answer with, or that only the connection's hop may carry. */
    private static final Set<String> RESERVED = Set.of("content-length", "transfer-encoding", "connection", "keep-alive",
            "upgrade", "trailer", "te", "proxy-connection", "location", "date");

    private SiteRulesReader() {}

    static List<AppConfig.Header> headers(Section top) {
        List<AppConfig.Header> out = new ArrayList<>();
        List<Section> rules = top.tables("headers");
        if (rules.size() > MAX_RULES) top.problem("headers", "headers may have at most " + MAX_RULES + " rules");
        for (Section s : rules) {
            s.only(Set.of("path", "values"));
            String path = pattern(s, "path");
            Section values = s.table("values");
            if (values == null) s.problem("values", s.name() + ".values is required: a table of header names and values");
            Map<String, String> v = new LinkedHashMap<>();
            if (values != null) for (String name : values.keys()) {
                if (!TOKEN.matcher(name).matches()) {
                    values.problem(name, "`" + name + "` is not a header name");
                } else if (RESERVED.contains(name.toLowerCase(Locale.ROOT))) {
                    values.problem(name, name + " is set by the router, not by a site");
                }
                String value = values.string(name, true, 1000);
                if (value != null && value.chars().anyMatch(c -> c < 0x20 && c != '\t' || c == 0x7f)) {
                    values.problem(name, values.name() + "." + name + " must not hold a control character or a line break");
                } else if (value != null) {
                    v.put(name, value);
                }
            }
            out.add(new AppConfig.Header(path, v));
        }
        return out.isEmpty() ? null : out;
    }

    static List<AppConfig.Redirect> redirects(Section top) {
        List<AppConfig.Redirect> out = new ArrayList<>();
        List<Section> rules = top.tables("redirects");
        if (rules.size() > MAX_RULES) top.problem("redirects", "redirects may have at most " + MAX_RULES + " rules");
        for (Section s : rules) {
            s.only(Set.of("from", "to", "status"));
            Integer status = s.integer("status", 300, 399);
            if (status != null && !REDIRECTS.contains(status)) s.problem("status", s.name() + ".status must be 301, 302, 307 or 308");
            String from = pattern(s, "from");
            String to = s.string("to", true, 1000);
            if (to != null && !TARGET.matcher(to).matches()) {
                s.problem("to", s.name() + ".to must be a path from / or an http(s):// URL, without spaces or control characters");
            }
            out.add(new AppConfig.Redirect(from, to, status == null ? 308 : status));
        }
        return out.isEmpty() ? null : out;
    }

    private static String pattern(Section s, String key) {
        String p = s.string(key, true, 255);
        if (p != null && !PATTERN.matcher(p).matches()) {
            s.problem(key, s.name() + "." + key + " must be a path from /, with at most a last * (`/blog/*`)");
            return null;
        }
        return p;
    }
}
