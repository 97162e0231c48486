package dev.slipway.source;

import org.apache.sshd.common.NamedResource;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.config.keys.PublicKeyEntry;
import org.apache.sshd.common.config.keys.writer.openssh.OpenSSHKeyPairResourceWriter;
import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.apache.sshd.common.util.security.SecurityUtils;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.PublicKey;
import java.util.Iterator;

/** Deploy keys: Ed25519 key pairs made by Apache MINA sshd, kept in OpenSSH's formats. */
public final class SshKeys {
    /** A new key: its private half in OpenSSH's private key format, its public half as an authorized_keys line. */
    public record Generated(String privateKey, String publicKey) {
        @Override
        public String toString() {
            return "Generated[privateKey=***, publicKey=" + publicKey + "]";
        }
    }

    private SshKeys() {}

    /** @param comment ends the public key's line, so whoever adds it to a repository sees what it is for */
    public static Generated generate(String comment) {
        try {
            KeyPair pair = KeyUtils.generateKeyPair(KeyPairProvider.SSH_ED25519, 256);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            OpenSSHKeyPairResourceWriter.INSTANCE.writePrivateKey(pair, comment, null, out);
            return new Generated(out.toString(StandardCharsets.UTF_8), line(pair.getPublic()) + " " + comment);
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot make an Ed25519 key: " + e.getMessage(), e);
        }
    }

    /** The key pair of a private key written by {@link #generate}. */
    static KeyPair load(String privateKey) {
        try {
            Iterable<KeyPair> pairs = SecurityUtils.loadKeyPairIdentities(null, NamedResource.ofName("deploy-key"),
                    new ByteArrayInputStream(privateKey.getBytes(StandardCharsets.UTF_8)), null);
            Iterator<KeyPair> it = pairs == null ? null : pairs.iterator();
            if (it == null || !it.hasNext()) throw new IllegalStateException("the stored deploy key holds no key");
            return it.next();
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("the stored deploy key cannot be read: " + e.getMessage(), e);
        }
    }

    /** {@code ssh-ed25519 AAAA…}: a public key as known_hosts and authorized_keys write it. */
    public static String line(PublicKey key) {
        return PublicKeyEntry.toString(key);
    }
}
