package dev.slipway.core;

import java.security.SecureRandom;
import java.time.Clock;

/**
 * Prefixed, time-sortable random ids: {@code prj_} + 10 Crockford base32 characters of
 * epoch milliseconds + 16 of randomness (the ULID layout), so ids sort by creation time.
 */
public final class Ids {
    private static final char[] ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz".toCharArray();
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Clock clock;
    private final boolean secure;

    public Ids(Clock clock) {
        this(clock, true);
    }

    private Ids(Clock clock, boolean secure) {
        this.clock = clock;
        this.secure = secure;
    }

    /** Ids that only name something (a request's id): the same shape from a fast generator, not a secure one. */
    public static Ids names(Clock clock) {
        return new Ids(clock, false);
    }

    public String next(String prefix) {
        long millis = clock.millis();
        char[] out = new char[26];
        for (int i = 9; i >= 0; i--) {
            out[i] = ALPHABET[(int) (millis & 31)];
            millis >>>= 5;
        }
        byte[] random = new byte[10];
        if (secure) RANDOM.nextBytes(random);
        else java.util.concurrent.ThreadLocalRandom.current().nextBytes(random);
        long hi = 0, lo = 0;
        for (int i = 0; i < 5; i++) hi = (hi << 8) | (random[i] & 0xff);
        for (int i = 5; i < 10; i++) lo = (lo << 8) | (random[i] & 0xff);
        for (int i = 17; i >= 10; i--) { out[i] = ALPHABET[(int) (hi & 31)]; hi >>>= 5; }
        for (int i = 25; i >= 18; i--) { out[i] = ALPHABET[(int) (lo & 31)]; lo >>>= 5; }
        return prefix + "_" + new String(out);
    }

    /** True when {@code id} has the shape of an id with this prefix (not that it exists). */
    public static boolean wellFormed(String id, String prefix) {
        if (id == null || id.length() != prefix.length() + 27 || !id.startsWith(prefix + "_")) return false;
        for (int i = prefix.length() + 1; i < id.length(); i++) {
            char c = id.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z'))) return false;
        }
        return true;
    }
}
