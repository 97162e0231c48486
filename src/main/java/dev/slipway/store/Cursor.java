package dev.slipway.store;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;

/** A keyset position: the (created_at, id) of the last row of a page, opaque to clients. */
public record Cursor(Instant createdAt, String id) {
    private static final String VERSION = "c1";
    private static final long LATEST_MICROS = Instant.parse("9999-12-31T23:59:59Z").getEpochSecond() * 1_000_000L;

    public String encode() {
        long micros = createdAt.getEpochSecond() * 1_000_000L + createdAt.getNano() / 1_000;
        String raw = VERSION + "|" + micros + "|" + id;
        return Base64.getUrlEncoder().withoutPadding().encodeToString(raw.getBytes(StandardCharsets.UTF_8));
    }

    /** @throws IllegalArgumentException when it is not a cursor this API made (its message says so) */
    public static Cursor decode(String value) {
        try {
            String raw = new String(Base64.getUrlDecoder().decode(value), StandardCharsets.UTF_8);
            String[] parts = raw.split("\\|", -1);
            if (parts.length != 3 || !parts[0].equals(VERSION) || parts[2].isEmpty() || parts[2].length() > 64) {
                throw new IllegalArgumentException();
            }
            long micros = Long.parseLong(parts[1]);
            if (micros < 0 || micros > LATEST_MICROS) throw new IllegalArgumentException(); // the stores take no later time
            Instant at = Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000L);
            return new Cursor(at, parts[2]);
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw new IllegalArgumentException("is not a cursor returned by this API", e);
        }
    }
}
