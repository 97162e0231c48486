package dev.slipway.projects;

import java.util.Map;

/** What is needed to create a project; validated before it gets here. */
public record NewProject(String accountId, String name, String source, String repo, String branch,
                         String framework, String region, String domain, Map<String, String> envVars) {
}
