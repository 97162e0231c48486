package dev.slipway.tls;

import dev.slipway.core.Env;
import dev.slipway.core.Setting;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;

/**
 * Automatic HTTPS for the apps: the HTTPS listener, the operator's wildcard certificate, and the ACME CA.
 *
 * @param httpsPort    the apps HTTPS listener's port (0: any free one); null: no HTTPS at all (no listener, no ACME)
 * @param wildcardCert PEM chain of the operator's certificate for {@code *.<apps domain>}; null: none
 * @param wildcardKey  its PEM private key
 * @param directoryUrl the ACME directory ({@code SLIPWAY_ACME_DIRECTORY_URL})
 * @param email        the ACME account's contact ({@code SLIPWAY_ACME_EMAIL}); null: none
 * @param caPem        an extra CA trusted for the ACME server's own HTTPS ({@code SLIPWAY_ACME_CA_PEM}), e.g. Pebble's
 * @param renewBefore  a certificate is renewed this long before it expires ({@code SLIPWAY_ACME_RENEW_BEFORE})
 * @param retryMin     the first delay after a failed order; each further failure doubles it ({@code SLIPWAY_ACME_RETRY_MIN})
 * @param retryMax     the longest delay between attempts ({@code SLIPWAY_ACME_RETRY_MAX})
 * @param checkEvery   how often the domains are checked and the certificates other servers issued are loaded
 *                     ({@code SLIPWAY_ACME_CHECK_INTERVAL})
 * @param challenge    how control is proven to the CA ({@code SLIPWAY_ACME_CHALLENGE}): {@link #HTTP_01} on the apps
 *                     HTTP listener (the CA connects to port 80), or {@link #TLS_ALPN_01} on the HTTPS one (port 443)
 */
public record TlsSettings(Integer httpsPort, Path wildcardCert, Path wildcardKey, String directoryUrl, String email,
                          Path caPem, Duration renewBefore, Duration retryMin, Duration retryMax, Duration checkEvery,
                          String challenge) {
    public static final String LETS_ENCRYPT = "https://acme-v02.api.letsencrypt.org/directory";
    public static final String HTTP_01 = "http-01";
    public static final String TLS_ALPN_01 = "tls-alpn-01";
    public static final Setting HTTPS_PORT = Setting.flag("--apps-https-port", "SLIPWAY_APPS_HTTPS_PORT", "none (HTTPS off)",
            "the apps HTTPS listener; turns on [automatic HTTPS](#automatic-https): ACME certificates for custom domains, "
                    + "HTTP→HTTPS redirects");
    public static final Setting WILDCARD_CERT = Setting.flag("--apps-tls-cert", "SLIPWAY_APPS_TLS_CERT", "none",
            "PEM certificate chain for `*.<apps domain>`, served for project and deployment addresses over HTTPS");
    public static final Setting WILDCARD_KEY = Setting.flag("--apps-tls-key", "SLIPWAY_APPS_TLS_KEY", "none",
            "its PEM private key (PKCS#8, or PKCS#1/SEC1); the server does not start while other users may read it "
                    + "(`chmod 600 <file>`)");
    public static final Setting DIRECTORY_URL = Setting.env("SLIPWAY_ACME_DIRECTORY_URL", "`" + LETS_ENCRYPT + "`",
            "the ACME CA (RFC 8555) custom domains get certificates from; Let's Encrypt staging or Pebble for tests");
    public static final Setting EMAIL = Setting.env("SLIPWAY_ACME_EMAIL", "none", "contact of the ACME account (expiry mails from the CA)");
    public static final Setting CA_PEM = Setting.env("SLIPWAY_ACME_CA_PEM", "none",
            "a PEM CA certificate trusted, besides the JDK's, for the ACME server's own HTTPS (Pebble's test certificate)");
    public static final Setting RENEW_BEFORE = Setting.env("SLIPWAY_ACME_RENEW_BEFORE", "`P30D`",
            "a certificate is renewed this long before it expires (seconds, `200ms` or ISO-8601)");
    public static final Setting RETRY_MIN = Setting.env("SLIPWAY_ACME_RETRY_MIN", "`60`",
            "after a failed order the next waits `min · 2^(failures-1)`");
    public static final Setting RETRY_MAX = Setting.env("SLIPWAY_ACME_RETRY_MAX", "`PT24H`", "at most `max`");
    public static final Setting CHECK_INTERVAL = Setting.env("SLIPWAY_ACME_CHECK_INTERVAL", "`60`",
            "how often each server checks which certificates are due and loads those other servers issued");
    public static final Setting CHALLENGE = Setting.env("SLIPWAY_ACME_CHALLENGE", "`http-01`",
            "how control of a domain is proven to the CA: `http-01` on the apps listener (port 80) or `tls-alpn-01` on "
                    + "the HTTPS listener (port 443)");
    public static final TlsSettings OFF = new TlsSettings(null, null, null, LETS_ENCRYPT, null, null,
            Duration.ofDays(30), Duration.ofMinutes(1), Duration.ofHours(24), Duration.ofMinutes(1), HTTP_01);

    public TlsSettings {
        if ((wildcardCert == null) != (wildcardKey == null)) {
            throw new IllegalArgumentException("the apps TLS certificate and key go together: set both or neither");
        }
        if (httpsPort != null && (httpsPort < 0 || httpsPort > 65535)) {
            throw new IllegalArgumentException("the apps HTTPS port must be from 0 to 65535");
        }
        if (directoryUrl == null || !(directoryUrl.startsWith("https://") || directoryUrl.startsWith("http://"))) {
            throw new IllegalArgumentException(DIRECTORY_URL.variable() + " must be an http(s) URL");
        }
        if (!HTTP_01.equals(challenge) && !TLS_ALPN_01.equals(challenge)) {
            throw new IllegalArgumentException(CHALLENGE.variable() + " must be " + HTTP_01 + " or " + TLS_ALPN_01
                    + ", got '" + challenge + "'");
        }
    }

    public boolean enabled() {
        return httpsPort != null;
    }

    public TlsSettings withHttpsPort(Integer port) {
        return new TlsSettings(port, wildcardCert, wildcardKey, directoryUrl, email, caPem, renewBefore, retryMin, retryMax, checkEvery, challenge);
    }

    public TlsSettings withWildcard(Path cert, Path key) {
        return new TlsSettings(httpsPort, cert, key, directoryUrl, email, caPem, renewBefore, retryMin, retryMax, checkEvery, challenge);
    }

    public TlsSettings withAcme(String directory, Path ca) {
        return new TlsSettings(httpsPort, wildcardCert, wildcardKey, directory, email, ca, renewBefore, retryMin, retryMax, checkEvery, challenge);
    }

    public TlsSettings withTimings(Duration renew, Duration min, Duration max, Duration check) {
        return new TlsSettings(httpsPort, wildcardCert, wildcardKey, directoryUrl, email, caPem, renew, min, max, check, challenge);
    }

    public TlsSettings withChallenge(String type) {
        return new TlsSettings(httpsPort, wildcardCert, wildcardKey, directoryUrl, email, caPem, renewBefore, retryMin, retryMax, checkEvery, type);
    }

    /**
     * What the environment sets over {@code base}, but the wildcard certificate and key: each may come from a flag
     * or a variable, and they are checked together once both are known. A bad value names its variable.
     */
    public static TlsSettings fromEnv(TlsSettings base, Env env) {
        Integer port = env.isSet(HTTPS_PORT) ? Integer.valueOf(env.integer(HTTPS_PORT, 0, 65535, 0)) : base.httpsPort();
        return new TlsSettings(port, base.wildcardCert(), base.wildcardKey(), env.text(DIRECTORY_URL, base.directoryUrl()),
                env.text(EMAIL, base.email()),
                env.text(CA_PEM).map(Path::of).orElse(base.caPem()),
                env.duration(RENEW_BEFORE, base.renewBefore()), env.duration(RETRY_MIN, base.retryMin()),
                env.duration(RETRY_MAX, base.retryMax()), env.duration(CHECK_INTERVAL, base.checkEvery()),
                env.text(CHALLENGE).map(v -> v.toLowerCase(Locale.ROOT)).orElse(base.challenge()));
    }
}
