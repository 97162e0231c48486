package dev.slipway.mail;

import dev.slipway.core.Env;
import org.junit.jupiter.api.Test;

import java.net.ServerSocket;
import java.net.URI;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MailerTest {
    @Test
    void badSettingsNameTheirVariable() {
        assertThatThrownBy(() -> MailSettings.fromEnv(Env.of(Map.of("SLIPWAY_SMTP_URL", "ftp://mail.example.com"))))
                .hasMessageContaining("SLIPWAY_SMTP_URL must start with smtp:// or smtps://");
        assertThatThrownBy(() -> MailSettings.fromEnv(Env.of(Map.of("SLIPWAY_SMTP_URL", "smtp:///x"))))
                .hasMessageContaining("SLIPWAY_SMTP_URL must name a host");
        assertThatThrownBy(() -> Mailer.of(new MailSettings(URI.create("smtp://127.0.0.1"), "not an address <"), "apps.test",
                Clock.systemUTC())).hasMessageContaining("SLIPWAY_MAIL_FROM is not a mail address");
        assertThat(Mailer.of(MailSettings.fromEnv(Env.of(Map.of())), "apps.test", Clock.systemUTC())).as("off").isNull();
        MailSettings withPassword = MailSettings.fromEnv(Env.of(Map.of("SLIPWAY_SMTP_URL", "smtps://u:hunter2@mail.example.com")));
        assertThat(withPassword.toString()).doesNotContain("hunter2");
    }

    @Test
    void aServerThatIsDownFailsTheMailNotTheCaller() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        try (Mailer mailer = Mailer.of(new MailSettings(URI.create("smtp://127.0.0.1:" + port), null), "apps.test", Clock.systemUTC())) {
            var sent = mailer.send("someone@example.com", "subject", "a secret link");
            assertThatThrownBy(() -> sent.get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .hasMessageContaining("mail to someone@example.com failed").hasMessageNotContaining("a secret link");
        }
    }
}
