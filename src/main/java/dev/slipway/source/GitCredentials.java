package dev.slipway.source;

import org.eclipse.jgit.transport.CredentialsProvider;
import org.eclipse.jgit.transport.UsernamePasswordCredentialsProvider;

/** How the server signs in to a private repository: a token over HTTPS, or a deploy key over SSH. */
public sealed interface GitCredentials permits GitCredentials.Token, GitCredentials.SshKey {
    /**
     * A token sent as HTTP basic auth. GitHub, GitLab and Gitea take a token with any user name, so {@code username}
     * is optional.
     */
    record Token(String username, String token) implements GitCredentials {
        /** The user name sent with a token when none is given (any non-empty name works with a token). */
        public static final String TOKEN_USER = "x-access-token";

        public Token {
            if (token == null || token.isEmpty()) throw new IllegalArgumentException("a token is required");
        }

        CredentialsProvider provider() {
            return new UsernamePasswordCredentialsProvider(username != null ? username : TOKEN_USER, token);
        }

        /** The token never reaches a log line through this record. */
        @Override
        public String toString() {
            return "Token[username=" + username + ", token=***]";
        }
    }

    /** A deploy key the server made ({@link SshKeys#generate}), in OpenSSH's private key format. */
    record SshKey(String privateKey) implements GitCredentials {
        @Override
        public String toString() {
            return "SshKey[***]";
        }
    }
}
