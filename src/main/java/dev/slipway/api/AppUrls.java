package dev.slipway.api;

/** Addresses of deployed apps on the apps listener (DESIGN §3 URLs) and of API resources. */
public final class AppUrls {
    private final String appsDomain;
    private final int appsPort;
    private final String publicUrl;
    private final String host;
    private final int apiPort;

    /**
     * @param publicUrl how clients reach the API ({@code --public-url}), or null for {@code http://host:apiPort}
     * @param apiPort   the bound API port
     */
    public AppUrls(String appsDomain, int appsPort, String publicUrl, String host, int apiPort) {
        this.appsDomain = appsDomain;
        this.appsPort = appsPort;
        this.publicUrl = publicUrl != null ? stripSlash(publicUrl) : null;
        this.host = host;
        this.apiPort = apiPort;
    }

    /** The domain the platform's own addresses are under ({@code localhost} by default). */
    public String appsDomain() {
        return appsDomain;
    }

    public String production(String projectName) {
        return "http://" + projectName + "." + appsDomain + ":" + appsPort;
    }

    public String deployment(String projectName, String shortId) {
        return "http://" + projectName + "-" + shortId + "." + appsDomain + ":" + appsPort;
    }

    /** The address of a branch's newest preview: {@code <label>} from {@code PreviewAddress}. */
    public String branchLabel(String label) {
        return "http://" + label + "." + appsDomain + ":" + appsPort;
    }

        /** Absolute address of an API path such as {@code /v1/deployments/dep_…/logs}. */
    public String api(String path) {
        return apiBase() + path;
    }

    public String apiBase() {
        return publicUrl != null ? publicUrl : "http://" + host + ":" + apiPort;
    }

    private static String stripSlash(String s) {
        return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
    }
}
