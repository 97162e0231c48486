package dev.slipway.router;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A strict HTTP/1.1 message head (RFC 9112) as the relay reads it: the start line and the header fields, found
 * in place in the connection's buffer as offsets, nothing copied or decoded. Anything that could be read two ways
 * (obs-fold, bare CR or LF, whitespace before a colon, control characters, two Content-Length fields,
 * Content-Length with Transfer-Encoding) is refused: the relay and the app behind it must never disagree on where
 * a message ends. One instance per loop and direction, reused: valid until the next parse, and while the buffer
 * it was parsed in is left alone.
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

    // the fields the relay looks at, each recognized once while parsing
    static final int OTHER = 0, HOST = 1, CONTENT_LENGTH = 2, TRANSFER_ENCODING = 3, CONNECTION = 4, UPGRADE = 5,
            HTTP2_SETTINGS = 6, EXPECT = 7, X_FORWARDED_FOR = 8, X_FORWARDED_PROTO = 9, X_FORWARDED_HOST = 10,
            X_FORWARDED_PORT = 11, VIA = 12, FORWARDED = 13, KEEP_ALIVE = 14, PROXY_CONNECTION = 15,
            PROXY_AUTHORIZATION = 16, PROXY_AUTHENTICATE = 17, TE = 18, TRAILER = 19, X_REAL_IP = 20;
    private static final byte[][] KNOWN = names("", "host", "content-length", "transfer-encoding", "connection", "upgrade",
            "http2-settings", "expect", "x-forwarded-for", "x-forwarded-proto", "x-forwarded-host", "x-forwarded-port",
            "via", "forwarded", "keep-alive", "proxy-connection", "proxy-authorization", "proxy-authenticate", "te", "trailer", "x-real-ip");
    private static final boolean[] TOKEN = new boolean[256];

    static {
        for (int c = '0'; c <= '9'; c++) TOKEN[c] = true;
        for (int c = 'a'; c <= 'z'; c++) TOKEN[c] = true;
        for (int c = 'A'; c <= 'Z'; c++) TOKEN[c] = true;
        for (char c : "!#$%&'*+-.^_`|~".toCharArray()) TOKEN[c] = true;
    }

    ByteBuffer buf;
    /** Where the head starts in the buffer, and its bytes, the blank line included. */
    int start;
    int length;
    /** Request: method, target, version. Response: version, status code, reason (end == start when none). */
    int firstStart, firstEnd, secondStart, secondEnd, thirdStart, thirdEnd;
    /** Fields: name [nameStart, nameEnd), value [valueStart, valueEnd) without surrounding whitespace. */
    int fields;
    int[] nameStart = new int[16], nameEnd = new int[16], valueStart = new int[16], valueEnd = new int[16], kind = new int[16];
    private final int[] count = new int[KNOWN.length];
    private final int[] first = new int[KNOWN.length];
    /** The tokens the Connection fields list: hop-by-hop for this message only. */
    int options;
    int[] optionStart = new int[4], optionEnd = new int[4];

    /**
     * Parses the request head at the buffer's position: false when its end has not arrived yet. Skips
     * nothing: blank lines before it are the caller's ({@link #leadingBlankLines}).
     */
    boolean request(ByteBuffer in, int max) throws Malformed {
        return parse(in, max, true);
    }

    boolean response(ByteBuffer in, int max) throws Malformed {
        return parse(in, max, false);
    }

    /** Bytes of blank lines (CRLF) at the buffer's position: tolerated before a request (RFC 9112 §2.2). */
    static int leadingBlankLines(ByteBuffer in) {
        int p = in.position();
        while (p + 1 < in.limit() && in.get(p) == '\r' && in.get(p + 1) == '\n') p += 2;
        return p - in.position();
    }

    private boolean parse(ByteBuffer in, int max, boolean request) throws Malformed {
        int from = in.position();
        int end = -1;
        int limit = Math.min(in.limit(), from + max);
        for (int i = from + 3; i < limit; i++) {
            if (in.get(i) == '\n' && in.get(i - 1) == '\r' && in.get(i - 2) == '\n' && in.get(i - 3) == '\r') {
                end = i + 1;
                break;
            }
        }
        if (end < 0) {
            if (in.limit() - from >= max) throw new Malformed(request ? 431 : 502, "head larger than " + max + " bytes");
            return false;
        }
        buf = in;
        start = from;
        length = end - from;
        fields = 0;
        options = 0;
        Arrays.fill(count, 0);
        int lineEnd = lineEnd(from, end);
        if (request) requestLine(from, lineEnd);
        else statusLine(from, lineEnd);
        int p = lineEnd + 2;
        while (p < end - 2) {
            int e = lineEnd(p, end);
            field(p, e);
            p = e + 2;
        }
        return true;
    }

    /** The CR of the CRLF ending the line at {@code from}; a bare CR or LF is malformed. */
    private int lineEnd(int from, int end) throws Malformed {
        for (int i = from; i < end; i++) {
            byte c = buf.get(i);
            if (c == '\r') {
                if (i + 1 < end && buf.get(i + 1) == '\n') return i;
                throw new Malformed(400, "bare CR");
            }
            if (c == '\n') throw new Malformed(400, "bare LF");
        }
        throw new Malformed(400, "unterminated line");
    }

    private int space(int from, int to) {
        for (int i = from; i < to; i++) if (buf.get(i) == ' ') return i;
        return -1;
    }

    private void requestLine(int from, int to) throws Malformed {
        int a = space(from, to);
        int b = a < 0 ? -1 : space(a + 1, to);
        if (a <= from || b < 0 || b == a + 1 || space(b + 1, to) >= 0) throw new Malformed(400, "bad request line");
        if (!token(from, a)) throw new Malformed(400, "bad method");
        for (int i = a + 1; i < b; i++) {
            int c = buf.get(i) & 0xff;
            if (c <= ' ' || c == 0x7f) throw new Malformed(400, "bad request target");
        }
        int v = b + 1;
        if (to - v != 8 || !startsWith(v, "HTTP/") || !digit(buf.get(v + 5)) || buf.get(v + 6) != '.' || !digit(buf.get(v + 7))) {
            throw new Malformed(400, "bad version");
        }
        firstStart = from;
        firstEnd = a;
        secondStart = a + 1;
        secondEnd = b;
        thirdStart = v;
        thirdEnd = to;
    }

    private void statusLine(int from, int to) throws Malformed {
        int a = space(from, to);
        if (a != from + 8 || !(startsWith(from, "HTTP/1.1") || startsWith(from, "HTTP/1.0"))) throw new Malformed(502, "bad status line");
        int b = space(a + 1, to);
        int statusEnd = b < 0 ? to : b;
        if (statusEnd - a - 1 != 3 || !digit(buf.get(a + 1)) || !digit(buf.get(a + 2)) || !digit(buf.get(a + 3))
                || buf.get(a + 1) == '0') throw new Malformed(502, "bad status");
        firstStart = from;
        firstEnd = a;
        secondStart = a + 1;
        secondEnd = statusEnd;
        thirdStart = b < 0 ? to : b + 1;
        thirdEnd = to;
    }

    private void field(int from, int to) throws Malformed {
        int colon = -1;
        for (int i = from; i < to; i++) {
            if (buf.get(i) == ':') {
                colon = i;
                break;
            }
        }
        if (colon < 0) throw new Malformed(400, "header line without a colon");
        // also refuses obs-fold (a line starting with whitespace) and whitespace before the colon
        if (!token(from, colon)) throw new Malformed(400, "bad header name");
        int vs = colon + 1;
        int ve = to;
        while (vs < ve && (buf.get(vs) == ' ' || buf.get(vs) == '\t')) vs++;
        while (ve > vs && (buf.get(ve - 1) == ' ' || buf.get(ve - 1) == '\t')) ve--;
        for (int i = vs; i < ve; i++) {
            int c = buf.get(i) & 0xff;
            if ((c < ' ' && c != '\t') || c == 0x7f) throw new Malformed(400, "control character in a header value");
        }
        if (fields == nameStart.length) {
            int n = fields * 2;
            nameStart = Arrays.copyOf(nameStart, n);
            nameEnd = Arrays.copyOf(nameEnd, n);
            valueStart = Arrays.copyOf(valueStart, n);
            valueEnd = Arrays.copyOf(valueEnd, n);
            kind = Arrays.copyOf(kind, n);
        }
        int k = classify(from, colon);
        int f = fields++;
        nameStart[f] = from;
        nameEnd[f] = colon;
        valueStart[f] = vs;
        valueEnd[f] = ve;
        kind[f] = k;
        if (count[k]++ == 0) first[k] = f;
        if (k == CONNECTION) connectionOptions(vs, ve);
    }

    private int classify(int from, int to) {
        int n = to - from;
        for (int k = 1; k < KNOWN.length; k++) {
            byte[] name = KNOWN[k];
            if (name.length == n && equalsLower(from, name)) return k;
        }
        return OTHER;
    }

    /** The comma-separated tokens of a Connection value, without the whitespace around them. */
    private void connectionOptions(int from, int to) {
        int s = from;
        for (int i = from; i <= to; i++) {
            if (i < to && buf.get(i) != ',') continue;
            int a = s;
            int b = i;
            while (a < b && (buf.get(a) == ' ' || buf.get(a) == '\t')) a++;
            while (b > a && (buf.get(b - 1) == ' ' || buf.get(b - 1) == '\t')) b--;
            if (a < b) {
                if (options == optionStart.length) {
                    optionStart = Arrays.copyOf(optionStart, options * 2);
                    optionEnd = Arrays.copyOf(optionEnd, options * 2);
                }
                optionStart[options] = a;
                optionEnd[options++] = b;
            }
            s = i + 1;
        }
    }

    private boolean token(int from, int to) {
        if (from >= to) return false;
        for (int i = from; i < to; i++) if (!TOKEN[buf.get(i) & 0xff]) return false;
        return true;
    }

    private boolean startsWith(int at, String ascii) {
        for (int i = 0; i < ascii.length(); i++) if (buf.get(at + i) != ascii.charAt(i)) return false;
        return true;
    }

    private static boolean digit(byte c) {
        return c >= '0' && c <= '9';
    }

    private static int lower(int c) {
        return c >= 'A' && c <= 'Z' ? c + 32 : c;
    }

    /** Whether the bytes at {@code at} are {@code lower} (lower case), ignoring case. */
    boolean equalsLower(int at, byte[] lower) {
        for (int i = 0; i < lower.length; i++) if (lower(buf.get(at + i)) != lower[i]) return false;
        return true;
    }

    /** Whether {@code [from, to)} is {@code lower} (lower case), ignoring case. */
    boolean is(int from, int to, byte[] lower) {
        return to - from == lower.length && equalsLower(from, lower);
    }

    /** Whether {@code [from, to)} is exactly {@code bytes}. */
    boolean same(int from, int to, byte[] bytes) {
        if (to - from != bytes.length) return false;
        for (int i = 0; i < bytes.length; i++) if (buf.get(from + i) != bytes[i]) return false;
        return true;
    }

    /** How many fields are of this kind (one of the constants above). */
    int count(int k) {
        return count[k];
    }

    /** The first field of this kind, or -1. */
    int first(int k) {
        return count[k] == 0 ? -1 : first[k];
    }

    String value(int field) {
        return string(valueStart[field], valueEnd[field]);
    }

    String string(int from, int to) {
        byte[] b = new byte[to - from];
        buf.get(from, b);
        return new String(b, StandardCharsets.ISO_8859_1);
    }

    private static final String[] METHODS = {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"};
    private static final byte[][] METHOD_BYTES = java.util.Arrays.stream(METHODS).map(RelayHead::ascii).toArray(byte[][]::new);

    /** A request's method; the common ones without a copy. */
    String method() {
        for (int i = 0; i < METHODS.length; i++) if (same(firstStart, firstEnd, METHOD_BYTES[i])) return METHODS[i];
        return string(firstStart, Math.min(firstEnd, firstStart + 32));
    }

    /**
     * A request's target up to its query, at most {@code max} characters. {@code cache} (a power of two long, one
     * thread's) holds paths seen before by their hash: an app's paths repeat, and a hit makes no copy.
     */
    String pathWithoutQuery(int max, String[] cache) {
        int end = secondStart;
        int limit = Math.min(secondEnd, secondStart + max);
        int hash = 0;
        for (byte b; end < limit && (b = buf.get(end)) != '?'; end++) hash = 31 * hash + b;
        int slot = (hash ^ (hash >>> 16)) & (cache.length - 1);
        String seen = cache[slot];
        if (seen != null && seen.length() == end - secondStart) {
            boolean same = true;
            for (int i = 0; same && i < seen.length(); i++) same = seen.charAt(i) == (buf.get(secondStart + i) & 0xff);
            if (same) return seen;
        }
        String path = string(secondStart, end);
        cache[slot] = path;
        return path;
    }

    /** The status code of a response head. */
    int status() {
        return (buf.get(secondStart) - '0') * 100 + (buf.get(secondStart + 1) - '0') * 10 + (buf.get(secondStart + 2) - '0');
    }

    /** The body's length from Content-Length: -1 when absent. Several fields, or a list, are malformed. */
    long contentLength(int malformedStatus) throws Malformed {
        if (count[CONTENT_LENGTH] > 1) throw new Malformed(malformedStatus, "several Content-Length fields");
        if (count[CONTENT_LENGTH] == 0) return -1;
        int f = first[CONTENT_LENGTH];
        int from = valueStart[f];
        int to = valueEnd[f];
        if (from == to || to - from > 18) throw new Malformed(malformedStatus, "bad Content-Length");
        long n = 0;
        for (int i = from; i < to; i++) {
            byte c = buf.get(i);
            if (!digit(c)) throw new Malformed(malformedStatus, "bad Content-Length");
            n = n * 10 + (c - '0');
        }
        return n;
    }

    /** Whether the Connection field lists {@code option} (lower case, e.g. "close"). */
    boolean connectionHas(byte[] option) {
        for (int i = 0; i < options; i++) if (is(optionStart[i], optionEnd[i], option)) return true;
        return false;
    }

    /** Whether the field is not to be relayed (RFC 9110 §7.6.1): hop-by-hop, or named by the Connection field. */
    boolean hopByHop(int field) {
        int k = kind[field];
        if (k == CONNECTION || k == KEEP_ALIVE || k == PROXY_CONNECTION || k == PROXY_AUTHORIZATION || k == PROXY_AUTHENTICATE
                || k == TE || k == TRAILER || k == UPGRADE) return true;
        if (options == 0) return false;
        int from = nameStart[field];
        int n = nameEnd[field] - from;
        for (int i = 0; i < options; i++) {
            if (optionEnd[i] - optionStart[i] != n) continue;
            boolean same = true;
            for (int j = 0; j < n && same; j++) same = lower(buf.get(optionStart[i] + j)) == lower(buf.get(from + j));
            if (same) return true;
        }
        return false;
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static byte[][] names(String... names) {
        byte[][] out = new byte[names.length][];
        for (int i = 0; i < names.length; i++) out[i] = ascii(names[i]);
        return out;
    }
}
