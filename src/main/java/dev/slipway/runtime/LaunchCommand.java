package dev.slipway.runtime;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The process of an app: its argv behind {@code setsid} (its own session and process group, so the
 * whole group can be signalled), its artifact as working directory, and a clean environment.
 */
final class LaunchCommand {
    static final String PORT_TOKEN = "${PORT}";
    /** Marks processes as ours, so recovery never kills a stranger that reused a recorded pid. */
    static final String DEPLOYMENT_MARKER = "SLIPWAY_DEPLOYMENT_ID";
    static final String NODE_MARKER = "SLIPWAY_NODE_ID";
    private static final List<String> INHERITED = List.of("PATH", "HOME", "LANG");

    private LaunchCommand() {}

    static ProcessBuilder build(AppSpec spec, int port, String nodeId, Map<String, String> serverEnv) {
        List<String> argv = new ArrayList<>();
        argv.add(Executables.SETSID);
        for (String arg : spec.artifact().startCommand()) argv.add(arg.replace(PORT_TOKEN, Integer.toString(port)));

        ProcessBuilder pb = new ProcessBuilder(argv).directory(spec.artifact().root().toFile());
        Map<String, String> env = pb.environment();
        env.clear();
        for (String name : INHERITED) {
            String v = serverEnv.get(name);
            if (v != null) env.put(name, v);
        }
        env.putIfAbsent("PATH", "/usr/local/bin:/usr/bin:/bin");
        env.putIfAbsent("LANG", "C.UTF-8");
        env.putAll(spec.env());
        env.put("PORT", Integer.toString(port));
        env.put(DEPLOYMENT_MARKER, spec.deploymentId());
        env.put(NODE_MARKER, nodeId);
        pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        return pb;
    }
}
