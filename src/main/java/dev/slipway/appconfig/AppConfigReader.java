package dev.slipway.appconfig;


import dev.slipway.isolation.Cell;
import dev.slipway.runtime.InstanceType;
import org.tomlj.Toml;
import org.tomlj.TomlParseError;
import org.tomlj.TomlParseResult;

import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads and checks a {@code slipway.toml} (TOML by tomlj, schedules by cron-utils): every mistake at once, each at its
 * line: syntax, unknown keys and tables, wrong types, values out of range, names and paths that cannot be.
 */
public final class AppConfigReader {
    /** The most instances of {@code web} a file may ask for. */
    public static final int MAX_REPLICAS = dev.slipway.runtime.Replicas.MAX;
    /** The largest volume, in MB: the largest tier's ({@link dev.slipway.accounts.Tier#maxVolumeMb}). */
    public static final int MAX_VOLUME_MB = dev.slipway.accounts.Tier.TEAM.maxVolumeMb();
    private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9-]{0,30}");
    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final Pattern STATUS = Pattern.compile("([1-5][0-9][0-9])(?:-([1-5][0-9][0-9]))?");

    /** The file as read, or what is wrong with it. */
    public record Result(AppConfig config, List<ConfigProblem> problems) {
        public boolean ok() { return problems.isEmpty(); }
    }

    private AppConfigReader() {}

    public static Result read(String text) {
        TomlParseResult toml = Toml.parse(text);
        List<ConfigProblem> problems = new ArrayList<>();
        for (TomlParseError e : toml.errors()) {
            problems.add(new ConfigProblem(e.position() == null ? 0 : e.position().line(), "not valid TOML: " + e.getMessage()));
        }
        if (!problems.isEmpty()) return new Result(null, problems);
        Section top = new Section(toml, "", 1, problems);
        top.only(Set.of("build", "run", "health", "processes", "cron", "volumes", "env", "headers", "redirects"));
        AppConfig.Run run = run(top.table("run"));
        List<AppConfig.Volume> volumes = volumes(top, run);
        AppConfig config = new AppConfig(build(top.table("build")), run, health(top.table("health")),
                processes(top.table("processes")), cron(top), volumes, env(top.table("env")), SiteRulesReader.headers(top), SiteRulesReader.redirects(top));
        return new Result(problems.isEmpty() ? config : null, List.copyOf(problems));
    }

    private static AppConfig.Build build(Section s) {
        if (s == null) return null;
        s.only(Set.of("command", "framework", "dockerfile"));
        String dockerfile = s.string("dockerfile", false, 255);
        if (dockerfile != null && (dockerfile.startsWith("/") || dockerfile.contains(".."))) {
            s.problem("dockerfile", "build.dockerfile must be a path inside the app's folder, without '..'");
        }
        return new AppConfig.Build(s.string("command", true, 1000), s.string("framework", false, 40), dockerfile);
    }

    private static AppConfig.Run run(Section s) {
        if (s == null) return null;
        s.only(Set.of("command", "replicas", "instance_type"));
        String type = s.string("instance_type", false, 40);
        if (type != null && InstanceType.byLabel(type).isEmpty()) {
            s.problem("instance_type", "run.instance_type must be one of " + String.join(", ", InstanceType.labels()));
        }
        return new AppConfig.Run(s.string("command", false, 1000), s.integer("replicas", 1, MAX_REPLICAS), type);
    }

    private static AppConfig.Health health(Section s) {
        if (s == null) return null;
        s.only(Set.of("path", "status", "interval_seconds", "grace_seconds", "failures"));
        String path = s.string("path", true, 255);
        if (path != null && (!path.startsWith("/") || path.chars().anyMatch(c -> c <= ' ' || c == 0x7f))) {
            s.problem("path", "health.path must start with / and hold no spaces");
        }
        String status = s.string("status", false, 7);
        if (status != null && statusRange(status) == null) {
            s.problem("status", "health.status must be a status or a range such as 200-399");
        }
        return new AppConfig.Health(path, status, s.integer("interval_seconds", 1, 3600), s.integer("grace_seconds", 0, 3600),
                s.integer("failures", 1, 100));
    }

    /** {@code 200-399} or {@code 204} as [min, max]; null when it is neither. */
    public static int[] statusRange(String status) {
        Matcher m = STATUS.matcher(status.strip());
        if (!m.matches()) return null;
        int min = Integer.parseInt(m.group(1));
        int max = m.group(2) == null ? min : Integer.parseInt(m.group(2));
        return min <= max ? new int[]{min, max} : null;
    }

    private static Map<String, String> processes(Section s) {
        if (s == null) return null;
        Map<String, String> out = new LinkedHashMap<>();
        for (String name : s.keys()) {
            if (!NAME.matcher(name).matches() || name.equals("web") || name.equals("release")) {
                s.problem(name, "processes." + name + ": a process type is a lowercase name (web is [run] command; release is"
                        + " the Procfile's release: line)");
                continue;
            }
            String command = s.string(name, true, 1000);
            if (command != null) out.put(name, command);
        }
        return out;
    }

    private static List<AppConfig.Cron> cron(Section top) {
        List<AppConfig.Cron> out = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (Section s : top.tables("cron")) {
            s.only(Set.of("name", "schedule", "command", "timezone"));
            String name = name(s, names);
            String schedule = s.string("schedule", true, 100);
            String zone = s.string("timezone", false, 64);
            ZoneId id = ZoneId.of("UTC");
            if (zone != null) {
                try {
                    id = ZoneId.of(zone);
                } catch (DateTimeException e) {
                    s.problem("timezone", s.name() + ".timezone is not a time zone (such as Europe/Paris)");
                }
            }
            if (schedule != null) {
                try {
                    Schedule.parse(schedule, id);
                } catch (IllegalArgumentException e) {
                    s.problem("schedule", s.name() + ".schedule `" + schedule + "` " + e.getMessage());
                }
            }
            out.add(new AppConfig.Cron(name, schedule, s.string("command", true, 1000), zone));
        }
        return out.isEmpty() ? null : out;
    }

    private static List<AppConfig.Volume> volumes(Section top, AppConfig.Run run) {
        List<AppConfig.Volume> out = new ArrayList<>();
        Set<String> names = new HashSet<>();
        Set<String> paths = new HashSet<>();
        int replicas = run == null || run.replicas() == null ? 1 : run.replicas();
        for (Section s : top.tables("volumes")) {
            s.only(Set.of("name", "path", "size_mb", "shared"));
            String name = name(s, names);
            String path = s.string("path", true, 255);
            if (path != null) {
                String problem = Cell.Mount.problem(path);
                if (problem != null) s.problem("path", s.name() + ".path " + problem);
                else if (!paths.add(path)) s.problem("path", s.name() + ".path " + path + " is another volume's");
            }
            Integer size = s.integer("size_mb", 1, MAX_VOLUME_MB);
            if (size == null && s.keys().stream().noneMatch("size_mb"::equals)) s.problem("size_mb", s.name() + ".size_mb is required");
            Boolean shared = s.bool("shared");
            if (replicas > 1 && !Boolean.TRUE.equals(shared)) {
                s.problem("shared", s.name() + " is mounted by " + replicas + " replicas at once: say shared = true (they all"
                        + " write the same files) or run one replica");
            }
            out.add(new AppConfig.Volume(name, path, size == null ? 0 : size, Boolean.TRUE.equals(shared)));
        }
        return out.isEmpty() ? null : out;
    }

    /** The table's {@code name}: required, a lowercase name, unique among its kind. */
    private static String name(Section s, Set<String> seen) {
        String name = s.string("name", true, 31);
        if (name == null) return null;
        if (!NAME.matcher(name).matches()) {
            s.problem("name", s.name() + ".name must be lowercase letters, digits and '-', starting with a letter");
        } else if (!seen.add(name)) {
            s.problem("name", s.name() + ".name `" + name + "` is used twice");
        }
        return name;
    }

    private static Map<String, String> env(Section s) {
        if (s == null) return null;
        Map<String, String> out = new LinkedHashMap<>();
        for (String key : s.keys()) {
            if (!ENV_NAME.matcher(key).matches()) {
                s.problem(key, "env." + key + " is not a variable name");
                continue;
            }
            String v = s.string(key, false, 32 * 1024);
            if (v != null) out.put(key, v);
        }
        return out;
    }
}
