package dev.slipway.mail;

import dev.slipway.core.Env;
import dev.slipway.core.Setting;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;

/**
 * Where Slipway sends mail (password resets). Off without an SMTP server.
 *
 * @param smtp {@code smtp://[user:password@]host[:port]} or {@code smtps://…}; null: no mail
 * @param from the sender; null: {@code slipway@<apps domain>}
 */
public record MailSettings(URI smtp, String from) {
    public static final Setting SMTP_URL = Setting.env("SLIPWAY_SMTP_URL", "none (passwords are reset by an operator)",
            "an SMTP server for password-reset mail: `smtp://[user:password@]host[:port]` (port 587; STARTTLS, required "
                    + "unless the host is loopback) or `smtps://…` (TLS from the start, port 465). Percent-encode `@` and `:` in "
                    + "the user and password");
    public static final Setting FROM = Setting.env("SLIPWAY_MAIL_FROM", "`slipway@<apps domain>`", "the sender of Slipway's mail");
    public static final MailSettings OFF = new MailSettings(null, null);

    public MailSettings {
        if (smtp != null) {
            String scheme = smtp.getScheme() == null ? "" : smtp.getScheme().toLowerCase(Locale.ROOT);
            if (!scheme.equals("smtp") && !scheme.equals("smtps")) {
                throw new IllegalArgumentException(SMTP_URL.variable() + " must start with smtp:// or smtps://");
            }
            if (smtp.getHost() == null || smtp.getHost().isBlank()) {
                throw new IllegalArgumentException(SMTP_URL.variable() + " must name a host: smtp://host[:port]");
            }
        }
    }

    public static MailSettings fromEnv(Env env) {
        URI smtp = env.text(SMTP_URL).map(MailSettings::uri).orElse(null);
        return new MailSettings(smtp, env.text(FROM).orElse(null));
    }

    private static URI uri(String text) {
        try {
            return new URI(text.strip());
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(SMTP_URL.variable() + " is not a URL: " + e.getReason());
        }
    }

    public boolean enabled() {
        return smtp != null;
    }

    /** Never shows the SMTP password. */
    @Override
    public String toString() {
        return "MailSettings[" + (smtp == null ? "off" : smtp.getScheme() + "://" + smtp.getHost() + ":" + smtp.getPort()) + "]";
    }
}
