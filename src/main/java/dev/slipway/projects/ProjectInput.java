package dev.slipway.projects;

import dev.slipway.api.Body;
import dev.slipway.build.oci.ImageName;
import dev.slipway.build.RegistryLogin;
import dev.slipway.source.GitNames;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The fields that describe a project's source and serving, validated the same way wherever they are accepted.
 *
 * @param repo          where the source lives: {@code owner/repo} for a git source, the image reference for source {@code image}
 * @param registryLogin the login to the registry of its images (null: none)
 * @param git           its git credentials and watch paths ({@link GitInput#NONE}: none)
 */
public record ProjectInput(String source, String repo, String branch, String framework, String region,
                           String domain, Map<String, String> envVars, String rootDirectory, boolean hsts,
                           RegistryLogin registryLogin, String dockerfilePath, GitInput git) {
    public static final Set<String> GIT_SOURCES = Set.of("github", "gitlab", "bitbucket");
    public static final Set<String> SOURCES = Set.of("github", "gitlab", "bitbucket", "zip", "image");
    /** A prebuilt OCI image: pulled, not built. */
    public static final String IMAGE = "image";
    public static final Set<String> FRAMEWORKS = Set.of("react-vite", "nextjs", "node-express", "python-fastapi", "node", "python", "static", "docker");
    public static final Pattern ENV_NAME = Pattern.compile("^[A-Za-z_][A-Za-z0-9_]{0,254}$");
    public static final Pattern HOSTNAME = Pattern.compile(
            "^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$");
    /** A label that reads as a deployment's address, {@code <project>-<short id>} (the id's last 8 characters). */
    public static final Pattern DEPLOYMENT_LABEL = Pattern.compile("^(.+)-([0-9a-z]{8})$");
    public static final Pattern PROJECT_NAME = Pattern.compile("^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$");
    /** Folders of letters, digits, '.', '_' and '-', separated by '/'; never '.' or '..', never absolute. */
    public static final Pattern ROOT_DIRECTORY = Pattern.compile(
            "^(?!.*(^|/)\\.{1,2}(/|$))[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*$");
    public static final String NAME_RULE = "must be lowercase letters, digits and '-', at most 40, not starting or ending with '-'";
    public static final int MAX_ENV_VARS = 200;
    public static final int MAX_ENV_VALUE = 32 * 1024;

    /** @param appsDomain the domain the platform's own addresses are under: no custom domain may be it or under it */
    public static ProjectInput read(Body body, List<String> regions, String appsDomain) {
        String source = body.oneOf("source", true, SOURCES);
        String repo = null;
        if (source != null && GIT_SOURCES.contains(source)) {
            repo = body.string("repo", true, 200, null, null);
            if (repo != null && !GitNames.validRepo(repo)) {
                body.problem("repo", "must be owner/repo (letters, digits, '_', '.', '-')");
                repo = null;
            }
        } else if (IMAGE.equals(source)) {
            repo = image(body, true);
        } else if (body.has("repo")) {
            body.problem("repo", "is only for git sources (github, gitlab, bitbucket)");
        }
        if (!IMAGE.equals(source) && body.has("image")) body.problem("image", "is only for source image");
        if (IMAGE.equals(source)) {
            for (String field : List.of("repo", "branch", "framework", "root_directory", "dockerfile_path")) {
                if (body.has(field)) body.problem(field, "is not for source image: the image is run as it is");
            }
        }
        String branch = body.string("branch", false, 255, null, null);
        if (branch != null && !GitNames.validBranch(branch)) {
            body.problem("branch", "is not a valid git branch name");
        }
        if (branch == null) branch = "main";
        String framework = body.oneOf("framework", false, FRAMEWORKS);
        String region = body.string("region", false, 40, null, null);
        if (region == null) region = "us-east-1";
        if (!regions.contains(region)) {
            body.problem("region", "must be one of the regions this installation runs apps in: " + String.join(", ", regions));
        }
        String domain = domain(body, appsDomain);
        Map<String, String> env = body.stringMap("env_vars", MAX_ENV_VARS, ENV_NAME,
                "is not a valid variable name (letters, digits and '_', not starting with a digit)", MAX_ENV_VALUE);
        return new ProjectInput(source, repo, source == null || GIT_SOURCES.contains(source) ? branch : null,
                IMAGE.equals(source) ? IMAGE : framework, region, domain, env, IMAGE.equals(source) ? null : rootDirectory(body),
                hsts(body), RegistryAuthInput.read(body, IMAGE.equals(source) ? repo : null), dockerfilePath(body, framework),
                GitInput.read(body, source));
    }

    /** {@code dockerfile_path}: a relative file such as {@code deploy/api.Dockerfile}, for a Dockerfile build only. */
    private static String dockerfilePath(Body body, String framework) {
        String path = body.string("dockerfile_path", false, 255, ROOT_DIRECTORY,
                "must be a relative file such as deploy/api.Dockerfile: names of letters, digits, '.', '_' and '-' "
                        + "separated by '/', without '..'");
        if (path != null && framework != null && !framework.equals("docker")) {
            body.problem("dockerfile_path", "is for Dockerfile builds; framework " + framework + " builds without one");
        }
        return path;
    }

    /** {@code image}: an image reference ({@link ImageName}); null when absent (a problem when required). */
    public static String image(Body body, boolean required) {
        String raw = body.string("image", required, ImageName.MAX_LENGTH, null, null);
        if (raw == null) return null;
        if (ImageName.parse(raw).isEmpty()) {
            body.problem("image", ImageName.RULE);
            return null;
        }
        return raw;
    }

    /** {@code hsts}: Strict-Transport-Security on the project's HTTPS answers; false when absent. */
    private static boolean hsts(Body body) {
        return Boolean.TRUE.equals(body.bool("hsts"));
    }

    /** {@code domain}: a lowercase hostname, never the apps domain or a name under it; null when absent. */
    public static String domain(Body body, String appsDomain) {
        String domain = body.string("domain", false, 253, null, null);
        if (domain == null) return null;
        domain = domain.toLowerCase(Locale.ROOT);
        if (domain.endsWith(".")) domain = domain.substring(0, domain.length() - 1);
        if (underAppsDomain(domain, appsDomain)) {
            body.problem("domain", "must not be the apps domain (" + appsDomain + ") or a name under it: "
                    + "addresses under the apps domain belong to the platform");
        } else if (!HOSTNAME.matcher(domain).matches()) {
            body.problem("domain", "must be a hostname such as app.example.com");
        }
        return domain;
    }

    /** True when {@code domain} is the apps domain or a name under it (both lowercase, no trailing dot). */
    public static boolean underAppsDomain(String domain, String appsDomain) {
        String apps = appsDomain.toLowerCase(Locale.ROOT);
        if (apps.endsWith(".")) apps = apps.substring(0, apps.length() - 1);
        return domain.equals(apps) || domain.endsWith("." + apps);
    }

    /** {@code root_directory}: a relative folder such as {@code apps/web}; "", "." and "/" mean the top. */
    static String rootDirectory(Body body) {
        String dir = body.string("root_directory", false, 255, null, null);
        if (dir == null) return null;
        String trimmed = dir.strip().replaceAll("/+$", "");
        if (trimmed.startsWith("./")) trimmed = trimmed.substring(2);
        if (trimmed.isEmpty() || trimmed.equals(".")) return null;
        if (!ROOT_DIRECTORY.matcher(trimmed).matches()) {
            body.problem("root_directory", "must be a relative folder such as apps/web: names of letters, digits, "
                    + "'.', '_' and '-' separated by '/', without '..'");
            return null;
        }
        return trimmed;
    }

    /** An optional project {@code name}, validated; null when absent. */
    public static String name(Body body) {
        return body.string("name", false, 40, PROJECT_NAME, NAME_RULE);
    }

    /**
     * A DNS-label project name derived from where the source lives: a repository's name ({@code acme/Web_App} →
     * {@code web-app}), an image's last path component ({@code registry:5000/team/api:1.2} → {@code api}).
     */
    public static String nameFrom(String source, String repo) {
        if (repo == null) return "app";
        if (IMAGE.equals(source)) {
            String path = ImageName.parse(repo).map(ImageName::repository).orElse(repo);
            return slug(path.substring(path.lastIndexOf('/') + 1));
        }
        return slug(repo.substring(repo.indexOf('/') + 1));
    }

    /** Any name as a DNS label of at most 30 characters ({@code @acme/Web_App} → {@code acme-web-app}); "app" when nothing is left. */
    public static String slug(String name) {
        String base = name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]+", "-").replaceAll("-{2,}", "-")
                .replaceAll("^-+|-+$", "");
        if (base.length() > 30) base = base.substring(0, 30).replaceAll("-+$", "");
        return base.isEmpty() ? "app" : base;
    }
}
