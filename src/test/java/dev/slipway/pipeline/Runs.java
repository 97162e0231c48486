package dev.slipway.pipeline;

import dev.slipway.testing.Statuses;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.testing.Await;
import dev.slipway.testing.Http;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** Driving migrations and deployments through the API of one account, and looking at processes in /proc. */
public final class Runs {
    static final Duration RUN = Duration.ofSeconds(180);

    private final Http http;

    Runs(Http http) {
        this.http = http;
    }

    Http http() { return http; }

    /** A unique word to find a build's processes by; not UUID-shaped, which npm redacts in what it prints. */
    static String marker(String prefix) {
        return prefix + "-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
    }

    String migrate(String repo) {
        var r = http.post("/v1/migrations", "{\"source\":\"github\",\"repo\":\"" + repo + "\",\"framework\":\"node-express\"}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().at("/data/id").asText();
    }

    String deploy(String projectId) {
        var r = http.post("/v1/deployments", "{\"project_id\":\"" + projectId + "\"}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().at("/data/id").asText();
    }

    JsonNode deployment(String id) {
        var r = http.get("/v1/deployments/" + id);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return r.json().get("data");
    }

    JsonNode migration(String id) {
        var r = http.get("/v1/migrations/" + id);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return r.json().get("data");
    }

    String projectOf(String migrationId) {
        return migration(migrationId).get("project_id").asText();
    }

    /** The first deployment of a migration (the project's oldest). */
    String firstDeployment(String projectId) {
        JsonNode list = http.get("/v1/deployments?project_id=" + projectId + "&limit=100").json().get("data");
        return list.get(list.size() - 1).get("id").asText();
    }

    JsonNode awaitDeployment(String id, String status) {
        return await("deployments", id, status, RUN);
    }

    JsonNode awaitMigration(String id, String status) {
        return await("migrations", id, status, RUN);
    }

    JsonNode await(String kind, String id, String status, Duration timeout) {
        return Statuses.await(http, kind, id, status, timeout);
    }

    List<String> messages(String kind, String id) {
        List<String> out = new ArrayList<>();
        http.get("/v1/" + kind + "/" + id + "/logs").json().at("/data/logs")
                .forEach(e -> out.add(e.get("level").asText() + " " + e.get("message").asText()));
        return out;
    }

    /** Opens the gate of every build running with one of the markers ({@link NodeApp#gatedBuild}), in its working directory. */
    public static void openGates(String gate, String... markers) {
        for (String marker : markers) {
            for (long pid : processesWithArg(marker)) {
                try {
                    Files.writeString(Path.of("/proc", Long.toString(pid), "cwd", gate), "open");
                } catch (IOException gone) {
                    // the process ended, or it is not the build's node (npm's shell): the next look tries again
                }
            }
        }
    }

    /**
     * Opens the start gate of each process of {@code deploymentId}'s app ({@link NodeApp#gatedStart}): the file
     * {@code gate} in the process's temporary directory, seen from outside its sandbox through {@code /proc/<pid>/root};
     * how many gates it opened.
     */
    static int openStartGates(String marker, String deploymentId, String gate) {
        int opened = 0;
        for (var process : environments().entrySet()) {
            List<String> env = process.getValue();
            if (!env.contains(marker + "=" + deploymentId)) continue;
            String tmp = env.stream().filter(v -> v.startsWith("TMPDIR=")).reduce((a, b) -> b)
                    .map(v -> v.substring("TMPDIR=".length())).orElse("/tmp");
            try {
                Files.writeString(Path.of("/proc", Long.toString(process.getKey()), "root", tmp, gate), "open");
                opened++;
            } catch (IOException gone) {
                // the process ended, or it is the launcher before the sandbox's /tmp: the next look tries again
            }
        }
        return opened;
    }

    /** Pids of live processes whose command line contains {@code text}. */
    static List<Long> processesWithArg(String text) {
        byte[] needle = text.getBytes(StandardCharsets.UTF_8);
        List<Long> out = new ArrayList<>();
        for (long pid : pids()) {
            byte[] cmdline = read(Path.of("/proc", Long.toString(pid), "cmdline"));
            if (cmdline != null && alive(pid) && indexOf(cmdline, needle) >= 0) out.add(pid);
        }
        return out;
    }

    /** Pids of live processes whose environment holds the entry {@code name=value}. */
    static List<Long> processesWithEnv(String name, String value) {
        String entry = name + "=" + value;
        return environments().entrySet().stream().filter(p -> p.getValue().contains(entry)).map(Map.Entry::getKey).toList();
    }

    /** The environment entries of every live process this test can read, by pid. */
    private static Map<Long, List<String>> environments() {
        Map<Long, List<String>> out = new LinkedHashMap<>();
        for (long pid : pids()) {
            byte[] env = read(Path.of("/proc", Long.toString(pid), "environ"));
            if (env != null && alive(pid)) out.put(pid, List.of(new String(env, StandardCharsets.UTF_8).split("\0")));
        }
        return out;
    }

    static boolean alive(long pid) {
        byte[] stat = read(Path.of("/proc", Long.toString(pid), "stat"));
        if (stat == null) return false;
        String s = new String(stat, StandardCharsets.UTF_8);
        int close = s.lastIndexOf(')');
        return close > 0 && close + 2 < s.length() && "ZXx".indexOf(s.charAt(close + 2)) < 0;
    }

    private static List<Long> pids() {
        List<Long> out = new ArrayList<>();
        try (var dir = Files.newDirectoryStream(Path.of("/proc"))) {
            for (Path p : dir) {
                String name = p.getFileName().toString();
                if (!name.isEmpty() && name.chars().allMatch(Character::isDigit)) out.add(Long.parseLong(name));
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        out.remove(ProcessHandle.current().pid());
        return out;
    }

    private static byte[] read(Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException | SecurityException e) {
            return null;
        }
    }

    private static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) if (hay[i + j] != needle[j]) continue outer;
            return i;
        }
        return -1;
    }
}
