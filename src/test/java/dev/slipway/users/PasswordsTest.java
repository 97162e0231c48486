package dev.slipway.users;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class PasswordsTest {
    @Test
    void hashesVerifyAndRejectTampering() {
        String hash = Passwords.hash("correct horse battery");
        assertThat(hash).matches("^\\$argon2id\\$v=19\\$m=19456,t=2,p=1\\$[A-Za-z0-9+/]{22}\\$[A-Za-z0-9+/]{43}$");
        assertThat(Passwords.hash("correct horse battery")).as("a new salt each time").isNotEqualTo(hash);
        assertThat(Passwords.verify("correct horse battery", hash)).isTrue();
        assertThat(Passwords.verify("correct horse batter", hash)).isFalse();
        assertThat(Passwords.verify("correct horse battery", hash.replace("t=2", "t=3"))).isFalse();
        assertThat(Passwords.verify("correct horse battery", "$2a$10$notargon")).isFalse();
        assertThat(Passwords.verify("x".repeat(Passwords.MAX_LENGTH + 1), hash)).isFalse();
        assertThat(Passwords.verifyNone("anything")).isFalse();
    }

    @Test
    void generatedPasswordsAreLongAndDistinct() {
        String a = Passwords.generate();
        assertThat(a).hasSize(20).matches("[A-Za-z2-9]+");
        assertThat(Passwords.problem(a)).isNull();
        assertThat(Passwords.generate()).isNotEqualTo(a);
        assertThat(Passwords.problem("short")).contains("at least");
    }

    /** Not a gate: prints what one hash costs with the parameters in use, for the record. */
    @Test
    void measuresHashTime() {
        for (int i = 0; i < 3; i++) Passwords.hash("warm up the JIT");
        int n = 10;
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) Passwords.hash("correct horse battery");
        double ms = (System.nanoTime() - t0) / 1e6 / n;
        System.out.printf("argon2id m=%d KiB t=%d p=%d: %.1f ms per hash%n", Passwords.MEMORY_KIB, Passwords.ITERATIONS,
                Passwords.PARALLELISM, ms);
        assertThat(ms).isLessThan(2000);
    }
}
