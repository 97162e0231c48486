package dev.slipway.build;

import dev.slipway.net.DatabaseEndpoint;

import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

/**
 * What {@link Builder#build} builds, and with what.
 *
 * @param accountId    the project's account: a Node build reuses the packages an earlier build of the project
 *                     installed with the same lockfile, toolchain and variables (the account's build cache); null:
 *                     no build cache
 * @param commitSha    the commit the source was checked out at; null when it did not come from git
 * @param sourceDir    the checked-out source; it is copied, never modified
 * @param framework    the project's framework setting, or null to detect it
 * @param appDir       the app's folder in the source (e.g. {@code apps/web}), or null for the top. Detection, build,
 *                     start and static output all happen in that folder; with npm, pnpm or yarn workspaces the
 *                     install runs at the workspace's root
 * @param env          the app's environment variables (DATABASE_URL included), available to every step
 * @param database     the project's database as the platform recorded it, or null for none: the one database the
 *                     build's steps may reach, whatever their variables say
 * @param secretValues values masked in the log
 * @param registryLogin the project's login to the registry of its Dockerfile's base images, or null: none
 * @param dockerfilePath the Dockerfile to build, relative to the app's folder; null: {@code Dockerfile} when there is one
 * @param commands      the repository's own build and start commands ({@code slipway.toml}), over the kind's
 */
public record BuildRequest(String accountId, String projectId, String commitSha, Path sourceDir, String framework,
                           String appDir, Map<String, String> env, DatabaseEndpoint database, Set<String> secretValues,
                           RegistryLogin registryLogin, String dockerfilePath, Commands commands) {
    /**
     * @param build a shell command run in the app's folder after the install, instead of the kind's build; null: the kind's
     * @param start the web process's argv, over a Procfile's {@code web:} line; null: the Procfile's or the kind's
     */
    public record Commands(String build, java.util.List<String> start) {
        public static final Commands NONE = new Commands(null, null);
    }

    public BuildRequest {
        if (commands == null) commands = Commands.NONE;
    }

    public BuildRequest(String accountId, String projectId, String commitSha, Path sourceDir, String framework,
                        String appDir, Map<String, String> env, DatabaseEndpoint database, Set<String> secretValues,
                        RegistryLogin registryLogin, String dockerfilePath) {
        this(accountId, projectId, commitSha, sourceDir, framework, appDir, env, database, secretValues, registryLogin,
                dockerfilePath, Commands.NONE);
    }

    public BuildRequest(String accountId, String projectId, String commitSha, Path sourceDir, String framework,
                        String appDir, Map<String, String> env, DatabaseEndpoint database, Set<String> secretValues) {
        this(accountId, projectId, commitSha, sourceDir, framework, appDir, env, database, secretValues, null, null);
    }

    /** A build of the whole source, without an account (so without build cache) and without a database. */
    public static BuildRequest of(String projectId, String commitSha, Path sourceDir, String framework,
                                  Map<String, String> env, Set<String> secretValues) {
        return new BuildRequest(null, projectId, commitSha, sourceDir, framework, null, env, null, secretValues);
    }
}
