package dev.slipway.pushes;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * The git hosts whose webhooks a push webhook takes, told apart by the header that proves the sender: GitHub's
 * {@code X-Hub-Signature-256} ({@code sha256=} and a hex HMAC-SHA256 of the body), GitLab's {@code X-Gitlab-Token}
 * (the secret itself), Gitea's {@code X-Gitea-Signature} and Forgejo's {@code X-Forgejo-Signature} (a hex
 * HMAC-SHA256 of the body). Gitea and Forgejo also send GitHub's headers, so they are asked first.
 */
public enum GitHost {
    GITEA("Gitea/Forgejo") {
        @Override Optional<String> proof(UnaryOperator<String> headers) {
            return first(headers, "X-Forgejo-Signature", "X-Gitea-Signature");
        }
        @Override boolean verify(String proof, String secret, byte[] body) {
            return same(proof.trim().toLowerCase(Locale.ROOT), hmac(secret, body));
        }
        @Override Optional<String> event(UnaryOperator<String> headers) {
            return first(headers, "X-Forgejo-Event", "X-Gitea-Event");
        }
        @Override Optional<String> delivery(UnaryOperator<String> headers) {
            return first(headers, "X-Forgejo-Delivery", "X-Gitea-Delivery");
        }
    },
    GITHUB("GitHub") {
        @Override Optional<String> proof(UnaryOperator<String> headers) {
            return first(headers, "X-Hub-Signature-256");
        }
        @Override boolean verify(String proof, String secret, byte[] body) {
            String p = proof.trim();
            return p.startsWith("sha256=") && same(p.substring(7).toLowerCase(Locale.ROOT), hmac(secret, body));
        }
        @Override Optional<String> event(UnaryOperator<String> headers) {
            return first(headers, "X-GitHub-Event");
        }
        @Override Optional<String> delivery(UnaryOperator<String> headers) {
            return first(headers, "X-GitHub-Delivery");
        }
    },
    GITLAB("GitLab") {
        @Override Optional<String> proof(UnaryOperator<String> headers) {
            return first(headers, "X-Gitlab-Token");
        }
        @Override boolean verify(String proof, String secret, byte[] body) {
            return same(proof, secret);
        }
        @Override Optional<String> event(UnaryOperator<String> headers) {
            return first(headers, "X-Gitlab-Event");
        }
        @Override Optional<String> delivery(UnaryOperator<String> headers) {
            return first(headers, "X-Gitlab-Event-UUID", "Idempotency-Key");
        }
    };

    /** What a refused delivery is told it lacks. */
    public static final String HEADERS = "X-Hub-Signature-256 (GitHub), X-Gitlab-Token (GitLab) or X-Gitea-Signature (Gitea, Forgejo)";

    private final String title;

    GitHost(String title) {
        this.title = title;
    }

    public String title() {
        return title;
    }

    /** The host whose proof header the request carries, asked in the order above. */
    public static Optional<GitHost> of(UnaryOperator<String> headers) {
        for (GitHost host : values()) {
            if (host.proof(headers).isPresent()) return Optional.of(host);
        }
        return Optional.empty();
    }

    /** The request's proof header, when it carries this host's. */
    abstract Optional<String> proof(UnaryOperator<String> headers);

    /** True when {@code proof} shows that {@code body} was sent by someone who holds {@code secret}. */
    abstract boolean verify(String proof, String secret, byte[] body);

    /** The event's name, as the host names it ({@code push}, {@code Push Hook}, …). */
    abstract Optional<String> event(UnaryOperator<String> headers);

    /** The id the host gives this delivery (the same on a redelivery). */
    abstract Optional<String> delivery(UnaryOperator<String> headers);

    private static Optional<String> first(UnaryOperator<String> headers, String... names) {
        for (String name : names) {
            String value = headers.apply(name);
            if (value != null && !value.isBlank()) return Optional.of(value);
        }
        return Optional.empty();
    }

    static String hmac(String secret, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return HexFormat.of().formatHex(mac.doFinal(body));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 is not available", e);
        }
    }

    private static boolean same(String given, String expected) {
        return MessageDigest.isEqual(given.getBytes(StandardCharsets.UTF_8), expected.getBytes(StandardCharsets.UTF_8));
    }
}
