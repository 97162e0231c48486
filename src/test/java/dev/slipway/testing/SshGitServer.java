package dev.slipway.testing;

import dev.slipway.source.SshKeys;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.apache.sshd.git.pack.GitPackCommandFactory;
import org.apache.sshd.server.SshServer;

import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * A real SSH git server for tests: Apache MINA sshd on a loopback port, serving bare repositories with JGit's
 * upload-pack (sshd-git), as GitHub and GitLab serve {@code git@host:owner/repo.git}. It signs in only the public
 * keys it was given ({@link #authorize}), and its host key can be replaced ({@link #replaceHostKey}) as a
 * compromised or re-keyed host would show.
 */
public final class SshGitServer implements AutoCloseable {
    private final SshServer sshd;
    private final Set<String> authorized = ConcurrentHashMap.newKeySet();
    private final AtomicReference<KeyPair> hostKey = new AtomicReference<>(newKey());

    /** @param repositories the folder the repositories are under, asked at each command ({@code <owner>/<name>.git}) */
    private SshGitServer(Supplier<Path> repositories) throws IOException {
        sshd = SshServer.setUpDefaultServer();
        sshd.setHost("127.0.0.1");
        sshd.setPort(0);
        sshd.setKeyPairProvider(session -> List.of(hostKey.get()));
        sshd.setPublickeyAuthenticator((user, key, session) -> authorized.contains(SshKeys.line(key)));
        sshd.setPasswordAuthenticator(null);
        sshd.setKeyboardInteractiveAuthenticator(null);
        sshd.setCommandFactory(new GitPackCommandFactory((command, args, session, fs) -> repositories.get()));
        sshd.start();
    }

    public static SshGitServer start(Supplier<Path> repositories) {
        try {
            return new SshGitServer(repositories);
        } catch (IOException e) {
            throw new IllegalStateException("ssh git server did not start: " + e, e);
        }
    }

    /** {@code ssh://git@127.0.0.1:<port>}: the SSH base of every repository here. */
    public String base() {
        return "ssh://git@127.0.0.1:" + sshd.getPort();
    }

    /** Lets the key of this {@code ssh-ed25519 AAAA… comment} line sign in (as a deploy key added to a repository). */
    public void authorize(String publicKeyLine) {
        String[] parts = publicKeyLine.trim().split(" ");
        authorized.add(parts[0] + " " + parts[1]);
    }

    /** From now on the server shows another host key. */
    public void replaceHostKey() {
        hostKey.set(newKey());
    }

    private static KeyPair newKey() {
        try {
            return KeyUtils.generateKeyPair(KeyPairProvider.SSH_ED25519, 256);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot make a host key", e);
        }
    }

    @Override
    public void close() {
        try {
            sshd.stop(true);
        } catch (IOException e) {
            throw new IllegalStateException("ssh git server did not stop", e);
        }
    }
}
