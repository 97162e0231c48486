package dev.slipway.projects;

import java.security.SecureRandom;
import java.util.HexFormat;

/** The random value a domain's TXT record must hold: unguessable, so that nobody else's record matches it by chance. */
final class DomainTokens {
    private static final SecureRandom RANDOM = new SecureRandom();

    private DomainTokens() {}

    static String next() {
        byte[] b = new byte[16];
        RANDOM.nextBytes(b);
        return "slipway-verify=" + HexFormat.of().formatHex(b);
    }
}
