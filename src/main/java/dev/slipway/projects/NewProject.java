package dev.slipway.projects;

import java.util.Map;

/**
 * What is needed to create a project; validated before it gets here.
 *
 * @param rootDirectory the app's folder in its source ({@link ProjectInput#ROOT_DIRECTORY}), or null for the top
 * @param hsts          Strict-Transport-Security on its HTTPS answers
 */
public record NewProject(String accountId, String name, String source, String repo, String branch,
                         String framework, String region, String domain, Map<String, String> envVars,
                         String rootDirectory, boolean hsts, String dockerfilePath) {
    /** Without a Dockerfile path. */
    public NewProject(String accountId, String name, String source, String repo, String branch,
                      String framework, String region, String domain, Map<String, String> envVars,
                      String rootDirectory, boolean hsts) {
        this(accountId, name, source, repo, branch, framework, region, domain, envVars, rootDirectory, hsts, null);
    }

    /** Without HSTS. */
    public NewProject(String accountId, String name, String source, String repo, String branch,
                      String framework, String region, String domain, Map<String, String> envVars, String rootDirectory) {
        this(accountId, name, source, repo, branch, framework, region, domain, envVars, rootDirectory, false);
    }

    /** An app at the top of its source. */
    public NewProject(String accountId, String name, String source, String repo, String branch,
                      String framework, String region, String domain, Map<String, String> envVars) {
        this(accountId, name, source, repo, branch, framework, region, domain, envVars, null);
    }
}
