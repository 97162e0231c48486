package dev.slipway.source;

import org.eclipse.jgit.transport.CredentialsProvider;
import org.eclipse.jgit.transport.SshTransport;
import org.eclipse.jgit.api.TransportCommand;
import org.eclipse.jgit.transport.sshd.ServerKeyDatabase;
import org.eclipse.jgit.transport.sshd.SshdSessionFactory;
import org.eclipse.jgit.transport.sshd.SshdSessionFactoryBuilder;

import java.io.File;
import java.net.InetSocketAddress;
import java.security.KeyPair;
import java.security.PublicKey;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The SSH side of one fetch: JGit's Apache MINA sshd transport signing in with the project's deploy key only (never
 * the server user's keys, agent, config or known_hosts), and a host key check against the keys recorded on first use.
 */
final class SshSessions implements AutoCloseable {
    private final SshdSessionFactory factory;
    private final AtomicReference<String> refusedHost = new AtomicReference<>();

    /** @param home an empty folder of the fetch's own, where sshd may look for files it will not find */
    SshSessions(GitCredentials.SshKey key, HostKeyStore hostKeys, File home) {
        KeyPair pair = SshKeys.load(key.privateKey());
        ServerKeyDatabase check = new ServerKeyDatabase() {
            @Override
            public List<PublicKey> lookup(String connectAddress, InetSocketAddress remoteAddress, Configuration config) {
                return List.of();
            }

            @Override
            public boolean accept(String connectAddress, InetSocketAddress remoteAddress, PublicKey serverKey,
                                  Configuration config, CredentialsProvider provider) {
                String host = connectAddress;
                String shown = SshKeys.line(serverKey);
                if (hostKeys.recordFirst(host, shown).equals(shown)) return true;
                refusedHost.set(host);
                return false;
            }
        };
        factory = new SshdSessionFactoryBuilder()
                .setHomeDirectory(home)
                .setSshDirectory(new File(home, ".ssh"))
                .setConfigStoreFactory((homeDir, configFile, localUser) -> null)
                .setDefaultKnownHostsFiles(dir -> List.of())
                .setDefaultIdentities(dir -> List.of())
                .setDefaultKeysProvider(dir -> List.of(pair))
                .setServerKeyDatabase((homeDir, sshDir) -> check)
                .setPreferredAuthentications("publickey")
                .setConnectorFactory(null)
                .build(null);
    }

    void configure(TransportCommand<?, ?> command) {
        command.setTransportConfigCallback(transport -> {
            if (transport instanceof SshTransport ssh) ssh.setSshSessionFactory(factory);
        });
    }

    /** The host whose key did not match the one recorded for it, when that is why the fetch failed. */
    String refusedHost() {
        return refusedHost.get();
    }

    @Override
    public void close() {
        factory.close();
    }
}
