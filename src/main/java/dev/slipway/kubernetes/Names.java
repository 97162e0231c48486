package dev.slipway.kubernetes;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** Object names and labels. The podwatch side selects pods by these labels: change both together. */
final class Names {
    static final String MANAGED_BY = "app.kubernetes.io/managed-by";
    static final String SLIPWAY = "slipway";
    static final String ACCOUNT = "slipway.dev/account";
    static final String PROJECT = "slipway.dev/project";
    static final String DEPLOYMENT = "slipway.dev/deployment";
    /** On the per-project production Service, which carries no deployment label (its selector moves). */
    static final String ROLE = "slipway.dev/role";
    static final String PRODUCTION = "production";
    /** The port each app listens on inside its pod (the image's {@code PORT}). */
    static final int APP_PORT = 8080;

    private Names() {
    }

    /** {@code d-<deployment id>}: the Deployment, its Service and its NetworkPolicy. */
    static String deployment(String deploymentId) {
        return "d-" + dns(deploymentId);
    }

    /** The Secret with the app's env vars. */
    static String secret(String deploymentId) {
        return deployment(deploymentId) + "-env";
    }

    /** {@code p-<project id>}: the project's production Service. */
    static String production(String projectId) {
        return "p-" + dns(projectId);
    }

    /** {@code v-<project id>-<volume name>}: a project's volume, a PersistentVolumeClaim kept across its deployments. */
    static String volume(String projectId, String name) {
        return "v-" + dns(projectId) + "-" + dns(name);
    }

    static String dns(String id) {
        return id.toLowerCase(Locale.ROOT).replace('_', '-');
    }

    static Map<String, String> labels(String accountId, String projectId, String deploymentId) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(MANAGED_BY, SLIPWAY);
        m.put(ACCOUNT, accountId);
        m.put(PROJECT, projectId);
        m.put(DEPLOYMENT, deploymentId);
        return m;
    }

    /** What selects one deployment's pods. */
    static Map<String, String> selector(String deploymentId) {
        return Map.of(MANAGED_BY, SLIPWAY, DEPLOYMENT, deploymentId);
    }

    static String selectorString(String deploymentId) {
        return MANAGED_BY + "=" + SLIPWAY + "," + DEPLOYMENT + "=" + deploymentId;
    }
}
