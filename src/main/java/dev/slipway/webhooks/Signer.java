package dev.slipway.webhooks;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Standard Webhooks signing: secrets are {@code whsec_} + base64 of 32 random bytes; a signature is
 * {@code v1,} + base64 of HMAC-SHA256 over {@code <webhook-id>.<webhook-timestamp>.<body>} with the
 * secret's bytes. Several secrets (during a rotation) give several signatures, space-separated.
 */
public final class Signer {
    public static final String PREFIX = "whsec_";
    private static final SecureRandom RANDOM = new SecureRandom();

    private Signer() {}

    public static String newSecret() {
        byte[] key = new byte[32];
        RANDOM.nextBytes(key);
        return PREFIX + Base64.getEncoder().encodeToString(key);
    }

    public static String signatures(List<String> secrets, String messageId, long timestampSeconds, String body) {
        return secrets.stream().map(s -> sign(s, messageId, timestampSeconds, body)).collect(Collectors.joining(" "));
    }

    public static String sign(String secret, String messageId, long timestampSeconds, String body) {
        if (!secret.startsWith(PREFIX)) throw new IllegalArgumentException("not a webhook secret");
        byte[] key = Base64.getDecoder().decode(secret.substring(PREFIX.length()));
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            byte[] digest = mac.doFinal((messageId + "." + timestampSeconds + "." + body).getBytes(StandardCharsets.UTF_8));
            return "v1," + Base64.getEncoder().encodeToString(digest);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 is not available", e);
        }
    }
}
