package dev.slipway.users;

import org.bouncycastle.crypto.generators.Argon2BytesGenerator;
import org.bouncycastle.crypto.params.Argon2Parameters;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Password hashing with Argon2id (Bouncy Castle), stored in the PHC string format
 * {@code $argon2id$v=19$m=<KiB>,t=<passes>,p=<lanes>$<salt>$<hash>} so the parameters can be raised
 * later without breaking existing hashes. The defaults are OWASP's first recommendation for Argon2id
 * (19 MiB, 2 passes, 1 lane).
 */
public final class Passwords {
    public static final int MIN_LENGTH = 12;
    public static final int MAX_LENGTH = 1024;
    static final int MEMORY_KIB = 19 * 1024;
    static final int ITERATIONS = 2;
    static final int PARALLELISM = 1;
    private static final int SALT_BYTES = 16;
    private static final int HASH_BYTES = 32;
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Base64.Encoder B64 = Base64.getEncoder().withoutPadding();
    private static final Base64.Decoder B64D = Base64.getDecoder();
    private static final Pattern PHC = Pattern.compile(
            "^\\$argon2id\\$v=19\\$m=(\\d{1,7}),t=(\\d{1,3}),p=(\\d{1,2})\\$([A-Za-z0-9+/]{11,64})\\$([A-Za-z0-9+/]{22,128})$");
    private static final char[] ALPHABET = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789".toCharArray();
    /**
     * Verified against when the email is unknown, so an unknown email costs as much time as a wrong password.
     * Made on first use, not when the class loads: the first start hashes one password already.
     */
    private static final class Dummy {
        static final String HASH = hash("not a password of anyone");
    }

    private Passwords() {}

    public static String hash(String password) {
        byte[] salt = new byte[SALT_BYTES];
        RANDOM.nextBytes(salt);
        byte[] out = derive(password, salt, MEMORY_KIB, ITERATIONS, PARALLELISM, HASH_BYTES);
        return "$argon2id$v=19$m=" + MEMORY_KIB + ",t=" + ITERATIONS + ",p=" + PARALLELISM + "$"
                + B64.encodeToString(salt) + "$" + B64.encodeToString(out);
    }

    /** True when {@code password} matches {@code stored}; false for a wrong password or a malformed hash. */
    public static boolean verify(String password, String stored) {
        if (password == null || stored == null || password.length() > MAX_LENGTH) return false;
        Matcher m = PHC.matcher(stored);
        if (!m.matches()) return false;
        int memory = Integer.parseInt(m.group(1));
        int iterations = Integer.parseInt(m.group(2));
        int parallelism = Integer.parseInt(m.group(3));
        if (memory < 8 || memory > 1024 * 1024 || iterations < 1 || parallelism < 1) return false;
        byte[] salt = B64D.decode(m.group(4));
        byte[] expected = B64D.decode(m.group(5));
        byte[] actual = derive(password, salt, memory, iterations, parallelism, expected.length);
        return MessageDigest.isEqual(expected, actual);
    }

    /** Spends the time of one verification and returns false: for sign-ins of unknown emails. */
    public static boolean verifyNone(String password) {
        verify(password == null ? "" : password, Dummy.HASH);
        return false;
    }

    /** A new random password of 20 characters from an alphabet without look-alikes (about 116 bits). */
    public static String generate() {
        StringBuilder sb = new StringBuilder(20);
        for (int i = 0; i < 20; i++) sb.append(ALPHABET[RANDOM.nextInt(ALPHABET.length)]);
        return sb.toString();
    }

    /** Why a chosen password is refused, or null when it is acceptable. */
    public static String problem(String password) {
        if (password == null || password.length() < MIN_LENGTH) return "must be at least " + MIN_LENGTH + " characters";
        if (password.length() > MAX_LENGTH) return "must be at most " + MAX_LENGTH + " characters";
        return null;
    }

    private static byte[] derive(String password, byte[] salt, int memoryKib, int iterations, int parallelism, int length) {
        Argon2Parameters params = new Argon2Parameters.Builder(Argon2Parameters.ARGON2_id)
                .withVersion(Argon2Parameters.ARGON2_VERSION_13)
                .withMemoryAsKB(memoryKib).withIterations(iterations).withParallelism(parallelism)
                .withSalt(salt).build();
        Argon2BytesGenerator generator = new Argon2BytesGenerator();
        generator.init(params);
        byte[] out = new byte[length];
        generator.generateBytes(password.getBytes(StandardCharsets.UTF_8), out);
        return out;
    }
}
