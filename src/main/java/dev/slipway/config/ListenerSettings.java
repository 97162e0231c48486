package dev.slipway.config;

import dev.slipway.core.Setting;

/**
 * Where the server listens and how it is reached.
 *
 * @param host        the address both listeners bind to
 * @param apiPort     the API listener's port (0: any free one)
 * @param appsPort    the apps listener's port (0: any free one)
 * @param sandboxPort port of the plant-store sandbox's own listener; null: served at /sandbox on the API listener
 * @param appsDomain  apps are served at {@code <project>.<apps domain>}
 * @param publicUrl   how clients reach the API, for absolute links; null: {@code http://<host>:<api port>}
 */
public record ListenerSettings(String host, int apiPort, int appsPort, Integer sandboxPort, String appsDomain, String publicUrl) {
    public static final Setting HOST = Setting.flag("--host", "SLIPWAY_HOST", "`127.0.0.1`", "address both listeners bind to");
    public static final Setting API_PORT = Setting.flag("--api-port", "SLIPWAY_API_PORT", "`8080`",
            "the API listener (`/v1`, `/healthz`, `/readyz`, `/metrics`)");
    public static final Setting APPS_PORT = Setting.flag("--apps-port", "SLIPWAY_APPS_PORT", "`8081`",
            "the apps listener that serves deployed apps by `Host`");
    public static final Setting APPS_DOMAIN = Setting.flag("--apps-domain", "SLIPWAY_APPS_DOMAIN", "`localhost`",
            "apps are served at `<project>.<domain>`; no custom domain may be it or under it ([Custom domains](#custom-domains))");
    public static final Setting PUBLIC_URL = Setting.flag("--public-url", "SLIPWAY_PUBLIC_URL", "`http://<host>:<api port>`",
            "how clients reach the API, for absolute links (`Location`, `logs_url`)");
    public static final Setting SANDBOX_PORT = Setting.flag("--sandbox-port", "SLIPWAY_SANDBOX_PORT", "none (served at `<api>/sandbox`)",
            "the plant-store sandbox on its own port instead");
}
