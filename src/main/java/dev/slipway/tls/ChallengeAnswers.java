package dev.slipway.tls;

import java.util.Optional;

/**
 * The answers to an ACME CA's validation requests while an order is in flight: the store's, inside the server; asked
 * of the connected server, in the edge process (which never touches the store).
 */
public interface ChallengeAnswers {
    /** The HTTP-01 answer for {@code token}, only when it was issued for {@code host}. */
    Optional<String> http01(String token, String host);

    /** The TLS-ALPN-01 key authorization of the challenge in flight for {@code domain} (lower case). */
    Optional<String> alpn(String domain);

    /** No server to ask: nothing is answered. */
    ChallengeAnswers NONE = new ChallengeAnswers() {
        @Override
        public Optional<String> http01(String token, String host) {
            return Optional.empty();
        }

        @Override
        public Optional<String> alpn(String domain) {
            return Optional.empty();
        }
    };
}
