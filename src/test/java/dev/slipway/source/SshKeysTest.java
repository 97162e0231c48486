package dev.slipway.source;

import org.junit.jupiter.api.Test;

import java.security.KeyPair;
import java.security.Signature;

import static org.assertj.core.api.Assertions.assertThat;

class SshKeysTest {
    @Test
    void aDeployKeyIsEd25519ItsPrivateHalfReadsBackAndSignsForItsPublicHalf() throws Exception {
        SshKeys.Generated key = SshKeys.generate("slipway-prj_test");
        assertThat(key.publicKey()).matches("ssh-ed25519 AAAA[A-Za-z0-9+/=]+ slipway-prj_test");
        assertThat(key.privateKey()).startsWith("-----BEGIN OPENSSH PRIVATE KEY-----");
        assertThat(key.toString()).doesNotContain("PRIVATE").contains(key.publicKey());
        KeyPair pair = SshKeys.load(key.privateKey());
        assertThat(SshKeys.line(pair.getPublic()) + " slipway-prj_test").isEqualTo(key.publicKey());
        assertThat(SshKeys.generate("x").publicKey()).isNotEqualTo(SshKeys.generate("x").publicKey());
        assertThat(new GitCredentials.SshKey(key.privateKey()).toString()).doesNotContain("PRIVATE");
        assertThat(new GitCredentials.Token(null, "s3cret").toString()).doesNotContain("s3cret");
    }
}
