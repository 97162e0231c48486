package dev.slipway.appconfig;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.slipway.build.Artifact;
import dev.slipway.build.BuildRequest;
import dev.slipway.build.detect.CommandLine;
import dev.slipway.core.Json;
import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;
import dev.slipway.runtime.AppSpec;
import dev.slipway.runtime.HealthSpec;
import dev.slipway.runtime.Volume;
import dev.slipway.router.SiteRules;
import dev.slipway.router.Target;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A build's {@code slipway.toml} as the pipeline uses it: read from the source before the build (a bad file fails
 * the deployment, each mistake at its line in the log), what it changes in the build, recorded with the build as JSON,
 * and what it changes in every process that runs that build (its variables' defaults, health check, volumes).
 */
public record RepoConfig(AppConfig config) {
    public static final RepoConfig NONE = new RepoConfig(null);
    /** Between health checks of a running app whose file has a [health] section without an interval. */
    static final Duration INTERVAL = Duration.ofSeconds(10);
    private static final long MAX_BYTES = 64 * 1024;

    /** Thrown when the file has mistakes: the message lists each at its line. */
    public static final class Invalid extends RuntimeException {
        Invalid(String message) {
            super(message);
        }
    }

    /**
     * The file in the app's folder of the checked-out source, or {@link #NONE}.
     *
     * @throws Invalid when it has mistakes (each logged at error level first)
     */
    public static RepoConfig read(Path source, String appDir, LogSink log) {
        Path file = (appDir == null ? source : source.resolve(appDir)).resolve(AppConfig.FILE).normalize();
        if (!file.startsWith(source) || !Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) return NONE;
        String text;
        try {
            if (Files.size(file) > MAX_BYTES) throw new Invalid(AppConfig.FILE + " is larger than 64 KB");
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new Invalid(AppConfig.FILE + " cannot be read: " + e.getMessage());
        }
        AppConfigReader.Result r = AppConfigReader.read(text);
        if (!r.ok()) {
            for (ConfigProblem p : r.problems()) log.log(Level.ERROR, AppConfig.FILE + " " + p);
            throw new Invalid(AppConfig.FILE + " " + r.problems().getFirst() + (r.problems().size() > 1
                    ? " (and " + (r.problems().size() - 1) + " more mistake" + (r.problems().size() > 2 ? "s" : "") + " in the log)" : ""));
        }
        RepoConfig read = new RepoConfig(r.config());
        log.log(Level.INFO, "Read " + AppConfig.FILE + read.summary());
        return read;
    }

    /** As recorded with a build; {@link #NONE} for none (or a record this version cannot read). */
    public static RepoConfig ofJson(Optional<String> json) {
        if (json.isEmpty()) return NONE;
        try {
            return new RepoConfig(Json.MAPPER.readValue(json.get(), AppConfig.class));
        } catch (JsonProcessingException e) {
            return NONE;
        }
    }

    /** What to record with the build; null when there was no file. */
    public String json() {
        return config == null ? null : Json.write(config);
    }

    /** The framework the file names, when the project names none (the API's setting wins). */
    public String framework(String asked) {
        return asked != null || config == null || config.build() == null ? asked : config.build().framework();
    }

    public String dockerfile(String asked) {
        return asked != null || config == null || config.build() == null ? asked : config.build().dockerfile();
    }

    public BuildRequest.Commands commands() {
        if (config == null) return BuildRequest.Commands.NONE;
        String build = config.build() == null ? null : config.build().command();
        String start = config.run() == null ? null : config.run().command();
        return new BuildRequest.Commands(build, start == null ? null : CommandLine.split(start));
    }

    /** The file's [env] below {@code env}: a project's variable of the same name wins. */
    public Map<String, String> envBelow(Map<String, String> env) {
        if (config == null || config.env() == null) return env;
        Map<String, String> out = new LinkedHashMap<>(config.env());
        out.putAll(env);
        return out;
    }

    public HealthSpec health() {
        if (config == null || config.health() == null) return HealthSpec.DEFAULT;
        AppConfig.Health h = config.health();
        int[] range = h.status() == null ? new int[]{200, 399} : AppConfigReader.statusRange(h.status());
        return new HealthSpec(h.path(), range[0], range[1],
                Duration.ofSeconds(h.intervalSeconds() == null ? INTERVAL.toSeconds() : h.intervalSeconds()),
                Duration.ofSeconds(h.graceSeconds() == null ? 0 : h.graceSeconds()), h.failures() == null ? 3 : h.failures());
    }

    public List<Volume> volumes() {
        if (config == null || config.volumes() == null) return List.of();
        return config.volumes().stream().map(v -> new Volume(v.name(), v.path(), v.sizeMb())).toList();
    }

    /**
     * Why the app cannot run as {@code replicas} instances, or null: a volume not marked {@code shared} is mounted by one
     * instance only.
     */
    public String replicaProblem(int replicas) {
        if (replicas < 2 || config == null || config.volumes() == null) return null;
        List<String> own = config.volumes().stream().filter(v -> !v.shared()).map(AppConfig.Volume::name).toList();
        if (own.isEmpty()) return null;
        return "the volume " + String.join(", ", own) + " of " + AppConfig.FILE + " is not shared: " + replicas
                + " instances would write its files at once (mark it shared = true, or run one instance)";
    }

    /** The file's {@code [processes]}: each type's command split into arguments, as a Procfile line is. */
    public Map<String, List<String>> processes() {
        if (config == null || config.processes() == null) return Map.of();
        Map<String, List<String>> out = new LinkedHashMap<>();
        config.processes().forEach((type, command) -> out.put(type, CommandLine.split(command)));
        return out;
    }

    /** The file's {@code [run] replicas}, 1 when it says none. */
    public int replicas() {
        return config == null || config.run() == null || config.run().replicas() == null ? 1 : config.run().replicas();
    }

    /** The app as the file says it runs: its variables' defaults, its health check, its volumes. */
    public AppSpec apply(AppSpec spec) {
        if (config == null) return spec;
        return new AppSpec(spec.deploymentId(), spec.projectId(), spec.artifact(), envBelow(spec.env()), spec.secretValues(),
                spec.instanceType(), spec.database(), volumes(), health(), replicas(), processes());
    }

    private String summary() {
        StringBuilder s = new StringBuilder();
        if (config.build() != null && config.build().command() != null) s.append("; build: ").append(config.build().command());
        if (config.run() != null && config.run().command() != null) s.append("; start: ").append(config.run().command());
        if (replicas() > 1) s.append("; replicas: ").append(replicas());
        if (!processes().isEmpty()) s.append("; processes: ").append(String.join(", ", processes().keySet()));
        if (config.health() != null) s.append("; health check: ").append(health().path()).append(' ').append(health().range());
        if (config.cron() != null) s.append("; cron: ").append(config.cron().size()).append(" job(s)");
        if (config.volumes() != null) s.append("; volumes: ").append(config.volumes().stream().map(v -> v.name() + " at " + v.path()).toList());
        return s.toString();
    }

    /** {@code [run] instance_type}, or null. */
    public String instanceType() {
        return config == null || config.run() == null ? null : config.run().instanceType();
    }

    /** A static site of this build: its folder, and its file's headers and redirects. */
    public Target.StaticSite site(Artifact artifact) {
        return new Target.StaticSite(artifact.staticRoot(), artifact.spaFallback(), siteRules());
    }

    SiteRules siteRules() {
        if (config == null || config.headers() == null && config.redirects() == null) return SiteRules.NONE;
        return new SiteRules(
                config.headers() == null ? null : config.headers().stream().map(h -> new SiteRules.Header(h.path(), h.values())).toList(),
                config.redirects() == null ? null : config.redirects().stream().map(r -> new SiteRules.Redirect(r.from(), r.to(), r.status())).toList());
    }

    /** An app serves its own answers: says so when its file has rules only a static site's router applies. */
    public void warnSiteRulesOfApp(LogSink log) {
        if (!siteRules().none()) {
            log.log(Level.WARNING, AppConfig.FILE + " [[headers]] and [[redirects]] apply to static sites; this app"
                    + " answers with its own headers, so they are not applied");
        }
    }
}
