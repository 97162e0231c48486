package dev.slipway.pipeline;

import java.util.LinkedHashMap;
import java.util.Map;

/** Source files of a small dependency-free node app that says its version, for git-sourced pipeline tests. */
public final class NodeApp {
    private NodeApp() {}

    public static Map<String, String> version(String version) {
        Map<String, String> files = new LinkedHashMap<>();
        files.put("package.json", """
                {"name": "web", "version": "1.0.0", "private": true, "scripts": {"start": "node server.js"}}
                """);
        files.put("VERSION", version + "\n");
        files.put("server.js", """
                const http = require("http");
                const version = require("fs").readFileSync(__dirname + "/VERSION", "utf8").trim();
                const token = process.env.SECRET_TOKEN || "";
                http.createServer((req, res) => {
                  res.end("app:" + version + " token-length:" + token.length + " extra:" + (process.env.EXTRA || "-"));
                }).listen(Number(process.env.PORT), "127.0.0.1", () => console.log("listening, token " + token));
                """);
        return files;
    }

    /** An app whose build script fails. */
    static Map<String, String> failingBuild() {
        Map<String, String> files = version("broken");
        files.put("package.json", """
                {"name": "web", "version": "1.0.0", "private": true,
                 "scripts": {"build": "node -e \\"console.error('compile error in src/app.js'); process.exit(3)\\"", "start": "node server.js"}}
                """);
        return files;
    }

    /** An app that starts but never listens. */
    static Map<String, String> neverListens() {
        Map<String, String> files = version("silent");
        files.put("server.js", "console.log('starting but never listening'); setInterval(() => {}, 1000);\n");
        return files;
    }

    /**
     * An app whose build takes {@code millis} and prints a line every 200 ms; {@code marker} is in the build
     * command's argv, so a test can find the build process in /proc.
     */
    static Map<String, String> slowBuild(String version, int millis, String marker) {
        return slowBuild(version, millis, marker, true);
    }

    /** As above; a quiet build prints nothing (so it outlives a server that was killed: it never writes to the closed pipe). */
    static Map<String, String> slowBuild(String version, int millis, String marker, boolean chatty) {
        return withBuild(version, (chatty ? "let i=0;setInterval(()=>console.log('building '+(++i)),200);" : "")
                + "setTimeout(()=>process.exit(0)," + millis + ")/*" + marker + "*/");
    }

    /**
     * A quiet build that runs until the file {@code gate} exists in its working directory (at most
     * {@code millis}): a test that must find the build still running, however slow the machine, opens the
     * gate when it is done, through {@code /proc/<pid>/cwd} (a sandboxed build sees no other directory of the test's).
     */
    public static Map<String, String> gatedBuild(String version, int millis, String marker, String gate) {
        String path = gate;
        if (!path.matches("[a-z-]+")) throw new IllegalArgumentException(path);
        return withBuild(version, "setInterval(()=>{if(require('fs').existsSync('" + path + "'))process.exit(0)},100);"
                + "setTimeout(()=>process.exit(0)," + millis + ")/*" + marker + "*/");
    }

    /**
     * {@code files}' app, made to listen only once the file {@code gate} exists in its temporary directory (polled
     * every 50 ms): a test that must see the app still starting, however fast the machine, opens the gate when it is
     * done ({@link Runs#openStartGates}). Every start of the app waits for it, as the directory is new at each start.
     */
    static Map<String, String> gatedStart(Map<String, String> files, String gate) {
        if (!gate.matches("[a-z-]+")) throw new IllegalArgumentException(gate);
        Map<String, String> out = new LinkedHashMap<>(files);
        String server = out.get("server.js");
        int listen = server.indexOf("http.createServer(");
        out.put("server.js", server.substring(0, listen)
                + "const gate = require(\"path\").join(require(\"os\").tmpdir(), \"" + gate + "\");\n"
                + "const waiting = setInterval(() => {\n"
                + "  if (!require(\"fs\").existsSync(gate)) return;\n"
                + "  clearInterval(waiting);\n"
                + server.substring(listen) + "}, 50);\n");
        return out;
    }

    /** The app with a build script {@code node -e <script>} (no double quotes or backslashes in it). */
    static Map<String, String> withBuild(String version, String script) {
        if (script.contains("\"") || script.contains("\\")) throw new IllegalArgumentException(script);
        Map<String, String> files = version(version);
        files.put("package.json", """
                {"name": "web", "version": "1.0.0", "private": true,
                 "scripts": {"build": "node -e \\"%s\\"", "start": "node server.js"}}
                """.formatted(script));
        return files;
    }
}
