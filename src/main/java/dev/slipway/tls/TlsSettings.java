package dev.slipway.tls;

import dev.slipway.core.SettingDurations;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;

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
            throw new IllegalArgumentException("SLIPWAY_ACME_DIRECTORY_URL must be an http(s) URL");
        }
        if (!HTTP_01.equals(challenge) && !TLS_ALPN_01.equals(challenge)) {
            throw new IllegalArgumentException("SLIPWAY_ACME_CHALLENGE must be " + HTTP_01 + " or " + TLS_ALPN_01
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

    /** The ACME settings of the environment over {@code base} (the flags' HTTPS port and wildcard stay). */
    public static TlsSettings fromEnv(TlsSettings base, Map<String, String> env) {
        String dir = blank(env.get("SLIPWAY_ACME_DIRECTORY_URL")) ? base.directoryUrl() : env.get("SLIPWAY_ACME_DIRECTORY_URL").strip();
        String email = blank(env.get("SLIPWAY_ACME_EMAIL")) ? base.email() : env.get("SLIPWAY_ACME_EMAIL").strip();
        Path ca = blank(env.get("SLIPWAY_ACME_CA_PEM")) ? base.caPem() : Path.of(env.get("SLIPWAY_ACME_CA_PEM").strip());
        return new TlsSettings(base.httpsPort(), base.wildcardCert(), base.wildcardKey(), dir, email, ca,
                duration(env, "SLIPWAY_ACME_RENEW_BEFORE", base.renewBefore()),
                duration(env, "SLIPWAY_ACME_RETRY_MIN", base.retryMin()),
                duration(env, "SLIPWAY_ACME_RETRY_MAX", base.retryMax()),
                duration(env, "SLIPWAY_ACME_CHECK_INTERVAL", base.checkEvery()),
                blank(env.get("SLIPWAY_ACME_CHALLENGE")) ? base.challenge() : env.get("SLIPWAY_ACME_CHALLENGE").strip().toLowerCase(Locale.ROOT));
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }

    /** Seconds ({@code 30}), milliseconds ({@code 200ms}) or ISO-8601 ({@code P30D}). */
    private static Duration duration(Map<String, String> env, String name, Duration fallback) {
        String v = env.get(name);
        return blank(v) ? fallback : SettingDurations.parse(name, v);
    }
}
