package dev.slipway.client;

import java.util.LinkedHashMap;
import java.util.Map;

/** Source files of a small dependency-free node app that says its version, and broken and slow variants. */
final class ClientApps {
    private ClientApps() {}

    static Map<String, String> version(String version) {
        Map<String, String> files = new LinkedHashMap<>();
        files.put("package.json", """
                {"name": "web", "version": "1.0.0", "private": true, "scripts": {"start": "node server.js"}}
                """);
        files.put("VERSION", version + "\n");
        files.put("server.js", """
                const http = require("http");
                const version = require("fs").readFileSync(__dirname + "/VERSION", "utf8").trim();
                http.createServer((req, res) => {
                  res.end("app:" + version + " extra:" + (process.env.EXTRA || "-"));
                }).listen(Number(process.env.PORT), "127.0.0.1", () => console.log("listening on " + process.env.PORT));
                """);
        return files;
    }

    /** An app whose build script fails with a compiler-like message. */
    static Map<String, String> failingBuild() {
        Map<String, String> files = version("broken");
        files.put("package.json", """
                {"name": "web", "version": "1.0.0", "private": true,
                 "scripts": {"build": "node -e \\"console.error('compile error in src/app.js line 7'); process.exit(3)\\"", "start": "node server.js"}}
                """);
        return files;
    }

    /** An app whose build takes two minutes (to be cancelled). */
    static Map<String, String> slowBuild() {
        Map<String, String> files = version("slow");
        files.put("package.json", """
                {"name": "web", "version": "1.0.0", "private": true,
                 "scripts": {"build": "node -e \\"console.log('compiling slowly'); setTimeout(() => {}, 120000)\\"", "start": "node server.js"}}
                """);
        return files;
    }
}
