package dev.slipway.router;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A strict HTTP/1.1 message head (RFC 9112) as the relay reads it: the start line and the header fields,
 * nothing decoded. Anything that could be read two ways (obs-fold, bare CR or LF, whitespace before a colon,
 * control characters, two Content-Length fields, Content-Length with Transfer-Encoding) is refused: the relay
 * and the app behind it must never disagree on where a message ends.
 */
final class RelayHead {
    /** Like Jetty's default request header size. */
    static final int MAX_HEAD = 8 * 1024;

    /** A head that cannot be relayed: answered with {@code status} and the connection closed. */
    static final class Malformed extends Exception {
        final int status;

        Malformed(int status, String message) {
            super(message, null, false, false);
            this.status = status;
        }
    }

    record Field(String name, String value) {}

    /** Request: method, target, version. Response: version, status code as text, reason. */
    final String first;
    final String second;
    final String third;
    final List<Field> fields;
    /** Bytes of the head in the buffer, the blank line included. */
    final int length;

    private RelayHead(String first, String second, String third, List<Field> fields, int length) {
        this.first = first;
        this.second = second;
        this.third = third;
        this.fields = fields;
        this.length = length;
    }

    /** The head at the buffer's position, or null when its end has not arrived yet. Skips blank lines before it. */
    static RelayHead request(ByteBuffer in, int max) throws Malformed {
        return parse(in, max, true);
    }

    static RelayHead response(ByteBuffer in, int max) throws Malformed {
        return parse(in, max, false);
    }

    /** Bytes of blank lines (CRLF) at the buffer's position: tolerated before a request (RFC 9112 §2.2). */
    static int leadingBlankLines(ByteBuffer in) {
        int p = in.position();
        while (p + 1 < in.limit() && in.get(p) == '\r' && in.get(p + 1) == '\n') p += 2;
        return p - in.position();
    }

    private static RelayHead parse(ByteBuffer in, int max, boolean request) throws Malformed {
        int start = in.position();
        int end = -1;
        int limit = Math.min(in.limit(), start + max);
        for (int i = start + 3; i < limit; i++) {
            if (in.get(i) == '\n' && in.get(i - 1) == '\r' && in.get(i - 2) == '\n' && in.get(i - 3) == '\r') {
                end = i + 1;
                break;
            }
        }
        if (end < 0) {
            if (in.limit() - start >= max) throw new Malformed(request ? 431 : 502, "head larger than " + max + " bytes");
            return null;
        }
        byte[] bytes = new byte[end - start];
        in.get(start, bytes);
        String head = new String(bytes, StandardCharsets.ISO_8859_1);
        int lineEnd = lineEnd(head, 0);
        String[] startLine = startLine(head.substring(0, lineEnd), request);
        List<Field> fields = new ArrayList<>(12);
        int p = lineEnd + 2;
        while (p < head.length() - 2) {
            int e = lineEnd(head, p);
            fields.add(field(head, p, e));
            p = e + 2;
        }
        return new RelayHead(startLine[0], startLine[1], startLine[2], fields, bytes.length);
    }

    /** The CR of the CRLF ending the line at {@code from}; a bare CR or LF is malformed. */
    private static int lineEnd(String head, int from) throws Malformed {
        for (int i = from; i < head.length(); i++) {
            char c = head.charAt(i);
            if (c == '\r') {
                if (i + 1 < head.length() && head.charAt(i + 1) == '\n') return i;
                throw new Malformed(400, "bare CR");
            }
            if (c == '\n') throw new Malformed(400, "bare LF");
        }
        throw new Malformed(400, "unterminated line");
    }

    private static String[] startLine(String line, boolean request) throws Malformed {
        int a = line.indexOf(' ');
        int b = a < 0 ? -1 : line.indexOf(' ', a + 1);
        if (request) {
            if (a <= 0 || b < 0 || b == a + 1 || line.indexOf(' ', b + 1) >= 0) throw new Malformed(400, "bad request line");
            String method = line.substring(0, a);
            if (!token(method)) throw new Malformed(400, "bad method");
            String target = line.substring(a + 1, b);
            for (int i = 0; i < target.length(); i++) {
                char c = target.charAt(i);
                if (c <= ' ' || c == 0x7f) throw new Malformed(400, "bad request target");
            }
            String version = line.substring(b + 1);
            if (version.length() != 8 || !version.startsWith("HTTP/") || !digit(version.charAt(5)) || version.charAt(6) != '.'
                    || !digit(version.charAt(7))) throw new Malformed(400, "bad version");
            return new String[]{method, target, version};
        }
        if (a < 0 || !(line.startsWith("HTTP/1.1") || line.startsWith("HTTP/1.0")) || a != 8) throw new Malformed(502, "bad status line");
        String status = line.substring(a + 1, b < 0 ? line.length() : b);
        if (status.length() != 3 || !digit(status.charAt(0)) || !digit(status.charAt(1)) || !digit(status.charAt(2))
                || status.charAt(0) == '0') throw new Malformed(502, "bad status");
        return new String[]{line.substring(0, a), status, b < 0 ? "" : line.substring(b + 1)};
    }

    private static Field field(String head, int from, int to) throws Malformed {
        int colon = head.indexOf(':', from);
        if (colon < 0 || colon >= to) throw new Malformed(400, "header line without a colon");
        String name = head.substring(from, colon);
        // also refuses obs-fold (a line starting with whitespace) and whitespace before the colon
        if (!token(name)) throw new Malformed(400, "bad header name");
        int vs = colon + 1;
        int ve = to;
        while (vs < ve && (head.charAt(vs) == ' ' || head.charAt(vs) == '\t')) vs++;
        while (ve > vs && (head.charAt(ve - 1) == ' ' || head.charAt(ve - 1) == '\t')) ve--;
        for (int i = vs; i < ve; i++) {
            char c = head.charAt(i);
            if ((c < ' ' && c != '\t') || c == 0x7f) throw new Malformed(400, "control character in a header value");
        }
        return new Field(name, head.substring(vs, ve));
    }

    private static boolean digit(char c) {
        return c >= '0' && c <= '9';
    }

    private static boolean token(String s) {
        if (s.isEmpty()) return false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
            if (!ok) return false;
        }
        return true;
    }

    /** How many fields are named {@code name} (case-insensitive). */
    int count(String name) {
        int n = 0;
        for (Field f : fields) if (f.name.equalsIgnoreCase(name)) n++;
        return n;
    }

    /** The first field named {@code name}, or null. */
    String get(String name) {
        for (Field f : fields) if (f.name.equalsIgnoreCase(name)) return f.value;
        return null;
    }

    /** The body's length from Content-Length: -1 when absent. Several fields, or a list, are malformed. */
    long contentLength(int malformedStatus) throws Malformed {
        if (count("content-length") > 1) throw new Malformed(malformedStatus, "several Content-Length fields");
        String v = get("content-length");
        if (v == null) return -1;
        if (v.isEmpty() || v.length() > 18) throw new Malformed(malformedStatus, "bad Content-Length");
        for (int i = 0; i < v.length(); i++) if (v.charAt(i) < '0' || v.charAt(i) > '9') throw new Malformed(malformedStatus, "bad Content-Length");
        return Long.parseLong(v);
    }

    /** Whether the Connection field lists {@code option} (e.g. "close"). */
    boolean connectionHas(String option) {
        for (Field f : fields) {
            if (!f.name.equalsIgnoreCase("connection")) continue;
            for (String t : f.value.split(",")) if (t.strip().equalsIgnoreCase(option)) return true;
        }
        return false;
    }

    /** The field names the Connection field lists, lower case: hop-by-hop for this message only. */
    List<String> connectionOptions() {
        List<String> out = new ArrayList<>(2);
        for (Field f : fields) {
            if (!f.name.equalsIgnoreCase("connection")) continue;
            for (String t : f.value.split(",")) if (!t.isBlank()) out.add(t.strip().toLowerCase(Locale.ROOT));
        }
        return out;
    }
}
