package dev.slipway.config;

import dev.slipway.core.Setting;
import dev.slipway.source.GitHosts;

import java.util.List;

/**
 * What deployments this installation takes and how many it builds at once.
 *
 * @param regions          the regions it runs apps in; others are refused
 * @param uploadLimitBytes largest zip {@code POST /v1/uploads} accepts, and folder or zip the dashboard's new-project
 *                         form accepts
 * @param gitHosts         where each repository host kind is cloned from
 * @param buildSlots       deployments this server builds at once
 */
public record DeploymentSettings(List<String> regions, long uploadLimitBytes, GitHosts gitHosts, int buildSlots) {
    public static final long DEFAULT_UPLOAD_LIMIT = 100L * 1024 * 1024;
    public static final Setting REGIONS = Setting.flag("--regions", "SLIPWAY_REGIONS", "`us-east-1`",
            "regions this installation runs apps in; any other `region` is refused with 400");
    public static final Setting UPLOAD_LIMIT = Setting.flag("--upload-limit-bytes", "SLIPWAY_UPLOAD_LIMIT_BYTES",
            "`104857600` (100 MiB)",
            "largest zip `POST /v1/uploads` accepts, and folder or zip the dashboard's new-project form accepts");
    public static final Setting BUILD_SLOTS = Setting.flag("--build-slots", "SLIPWAY_BUILD_SLOTS", "`2`",
            "deployments this server builds at once; a migration created while all are busy is `pending`");

    public DeploymentSettings {
        regions = List.copyOf(regions);
        if (buildSlots < 1 || buildSlots > 64) throw new IllegalArgumentException("build slots must be from 1 to 64");
        if (uploadLimitBytes <= 0) throw new IllegalArgumentException("the upload limit must be positive");
    }
}
