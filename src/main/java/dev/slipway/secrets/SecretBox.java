package dev.slipway.secrets;

import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * Encrypts secrets at rest with AES-256-GCM. Stored form: {@code v1:<base64(nonce | ciphertext+tag)>}.
 * The key comes from {@code SLIPWAY_SECRET_KEY} (base64 of 32 bytes) or a key file created once,
 * owner-only, in the data dir.
 */
public final class SecretBox {
    private static final String VERSION = "v1:";
    private static final SecureRandom RANDOM = new SecureRandom();
    /** The key file's name in the data dir. */
    public static final String KEY_FILE = "secret.key";

    private final SecretKeySpec key;

    private SecretBox(byte[] key) {
        if (key.length != 32) throw new IllegalArgumentException("the secret key must be 32 bytes (base64 of 32 random bytes)");
        this.key = new SecretKeySpec(key, "AES");
    }

    public static SecretBox fromBase64(String base64) {
        try {
            return new SecretBox(Base64.getDecoder().decode(base64.trim()));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("SLIPWAY_SECRET_KEY must be base64 of 32 bytes: " + e.getMessage());
        }
    }

    /** Reads the key file in the data dir, creating it (mode 600) the first time. */
    public static SecretBox fromKeyFile(Path dataDir) throws IOException {
        Path file = dataDir.resolve(KEY_FILE);
        if (!Files.exists(file)) {
            byte[] fresh = new byte[32];
            RANDOM.nextBytes(fresh);
            Files.createDirectories(dataDir);
            try {
                Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
                Files.writeString(file, Base64.getEncoder().encodeToString(fresh), StandardOpenOption.TRUNCATE_EXISTING);
            } catch (FileAlreadyExistsException raced) {
                // another process created it first; use theirs
            }
        }
        return fromBase64(Files.readString(file));
    }

    public String encrypt(String plain) {
        try {
            byte[] nonce = new byte[12];
            RANDOM.nextBytes(nonce);
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(128, nonce));
            byte[] sealed = cipher.doFinal(plain.getBytes(StandardCharsets.UTF_8));
            byte[] out = new byte[nonce.length + sealed.length];
            System.arraycopy(nonce, 0, out, 0, nonce.length);
            System.arraycopy(sealed, 0, out, nonce.length, sealed.length);
            return VERSION + Base64.getEncoder().encodeToString(out);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("encryption failed", e);
        }
    }

    public String decrypt(String stored) {
        if (!stored.startsWith(VERSION)) throw new IllegalArgumentException("not a sealed secret");
        try {
            byte[] in = Base64.getDecoder().decode(stored.substring(VERSION.length()));
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(128, in, 0, 12));
            return new String(cipher.doFinal(in, 12, in.length - 12), StandardCharsets.UTF_8);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("a stored secret cannot be decrypted with this key (was SLIPWAY_SECRET_KEY changed?)", e);
        }
    }
}
