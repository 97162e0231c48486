package dev.slipway.appconfig;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.util.List;
import java.util.Map;

/**
 * What a repository's {@code slipway.toml} says of how its app is built and run, as read and checked at build time
 * and recorded with the build. Every part is optional; an absent one leaves the platform's default (or the API's
 * setting, which wins over the file).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record AppConfig(Build build, Run run, Health health, Map<String, String> processes, List<Cron> cron,
                        List<Volume> volumes, Map<String, String> env, List<Header> headers, List<Redirect> redirects) {
    public static final String FILE = "slipway.toml";

    /** @param dockerfile the Dockerfile to build, relative to the app's folder */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Build(String command, String framework, String dockerfile) {}

    /** @param command the web process (as a Procfile's {@code web:} line) */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Run(String command, Integer replicas, String instanceType) {}

    /** @param status the range that passes, {@code 200-399} */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Health(String path, String status, Integer intervalSeconds, Integer graceSeconds, Integer failures) {}

    /** @param timezone an IANA zone the schedule is read in; null: UTC */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Cron(String name, String schedule, String command, String timezone) {}

    /** @param shared may be mounted by several instances at once (required with more than one replica) */
    public record Volume(String name, String path, int sizeMb, boolean shared) {}

    public record Header(String path, Map<String, String> values) {}

    public record Redirect(String from, String to, int status) {}
}
