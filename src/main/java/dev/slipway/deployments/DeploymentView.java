package dev.slipway.deployments;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.core.Json;
import dev.slipway.api.AppUrls;
import dev.slipway.projects.PreviewAddress;
import dev.slipway.runtime.ProcessState;

import java.time.Instant;
import java.util.List;

/**
 * A deployment as the API shows it. The list form has the spec's base fields; the single read adds
 * {@code preview_url, region, instance_type, build_duration_seconds, logs_url}. {@code url} is the
 * deployment's own immutable address; {@code preview_url} is the same address while the deployment
 * is not the project's production (null while it is).
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
public record DeploymentView(String id, String projectId, String commitSha, String commitMessage, String branch,
                             String status, String url, Instant createdAt, Instant liveAt) {
    public static DeploymentView of(Deployment d, String projectName, AppUrls urls) {
        return new DeploymentView(d.id(), d.projectId(), d.commitSha(), d.commitMessage(), d.branch(),
                d.status().label(), urls.deployment(projectName, d.shortId()), d.createdAt(), d.liveAt());
    }

    public record Detail(String id, String projectId, String commitSha, String commitMessage, String branch,
                         String status, String url, Instant createdAt, Instant liveAt, String previewUrl,
                         String region, String instanceType, Integer buildDurationSeconds, String logsUrl,
                         String rollbackOf, String rolledBackFrom, String image, String target, String promotedFrom,
                         String branchUrl,
                         @JsonInclude(JsonInclude.Include.NON_NULL) List<ProcessState> processes,
                         @JsonInclude(JsonInclude.Include.NON_NULL) JsonNode config) {
        public static Detail of(Deployment d, String projectName, boolean production, AppUrls urls) {
            return of(d, projectName, production, urls, null, List.of());
        }

        /** The same, with what its build's {@code slipway.toml} said (JSON; null: it had none). */
        public Detail withConfig(String json) {
            if (json == null) return this;
            try {
                return new Detail(id, projectId, commitSha, commitMessage, branch, status, url, createdAt, liveAt, previewUrl,
                        region, instanceType, buildDurationSeconds, logsUrl, rollbackOf, rolledBackFrom, image, target,
                        promotedFrom, branchUrl, processes, Json.MAPPER.readTree(json));
            } catch (JsonProcessingException e) {
                return this;
            }
        }

        /** @param image the build's OCI image ({@code <repository>@sha256:...}), null when it has none */
        /** @param processes what runs of it on this server now, its app's process first; null: not shown (a webhook) */
        public static Detail of(Deployment d, String projectName, boolean production, AppUrls urls, String image,
                                List<ProcessState> processes) {
            String own = urls.deployment(projectName, d.shortId());
            return new Detail(d.id(), d.projectId(), d.commitSha(), d.commitMessage(), d.branch(), d.status().label(),
                    own, d.createdAt(), d.liveAt(), production ? null : own, d.region(), d.instanceType(),
                    d.buildDurationSeconds(), urls.api("/v1/deployments/" + d.id() + "/logs"),
                    d.rollbackOf(), d.rolledBackFrom(), image, d.target(), d.promotedFrom(),
                    d.preview() && d.branch() != null ? urls.branchLabel(PreviewAddress.label(projectName, d.branch())) : null,
                    processes, null);
        }
    }

    public record Triggered(String id, String projectId, String status, Instant createdAt) {}

    public record RolledBack(String id, String projectId, String rolledBackFrom, String rolledBackTo, String status,
                             Instant createdAt) {}
}
