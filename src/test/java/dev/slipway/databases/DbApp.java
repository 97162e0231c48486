package dev.slipway.databases;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A node app that uses its {@code DATABASE_URL} (PostgreSQL through {@code pg}, MySQL through
 * {@code mysql2}): {@code /roundtrip/<value>} inserts a row and answers every value; {@code /info}
 * answers its version, the hash of DATABASE_URL seen by the build and at run time, and the URL itself
 * (so a test can look for the password elsewhere).
 */
final class DbApp {
    private DbApp() {}

    static Map<String, String> version(String version) {
        Map<String, String> files = new LinkedHashMap<>();
        files.put("package.json", """
                {"name": "db-app", "version": "1.0.0", "private": true,
                 "dependencies": {"pg": "^8.13.0", "mysql2": "^3.11.0"},
                 "scripts": {"build": "node build.js", "start": "node server.js"}}
                """);
        files.put("VERSION", version + "\n");
        files.put("build.js", """
                const crypto = require("crypto");
                const url = process.env.DATABASE_URL || "";
                require("fs").writeFileSync(__dirname + "/build-info.json", JSON.stringify({
                  url_sha: url ? crypto.createHash("sha256").update(url).digest("hex") : null }));
                console.log("build sees DATABASE_URL " + url);
                """);
        files.put("server.js", """
                const http = require("http");
                const fs = require("fs");
                const crypto = require("crypto");
                const url = process.env.DATABASE_URL || "";
                const version = fs.readFileSync(__dirname + "/VERSION", "utf8").trim();
                const build = JSON.parse(fs.readFileSync(__dirname + "/build-info.json", "utf8"));
                const sha = s => crypto.createHash("sha256").update(s).digest("hex");

                async function roundtrip(value) {
                  if (url.startsWith("postgres://")) {
                    const { Client } = require("pg");
                    const c = new Client({ connectionString: url });
                    await c.connect();
                    try {
                      await c.query("CREATE TABLE IF NOT EXISTS notes (id SERIAL PRIMARY KEY, value TEXT NOT NULL)");
                      await c.query("INSERT INTO notes (value) VALUES ($1)", [value]);
                      return (await c.query("SELECT value FROM notes ORDER BY id")).rows.map(r => r.value);
                    } finally { await c.end(); }
                  }
                  const mysql = require("mysql2/promise");
                  const c = await mysql.createConnection(url);
                  try {
                    await c.query("CREATE TABLE IF NOT EXISTS notes (id INT AUTO_INCREMENT PRIMARY KEY, value TEXT NOT NULL)");
                    await c.execute("INSERT INTO notes (value) VALUES (?)", [value]);
                    const [rows] = await c.query("SELECT value FROM notes ORDER BY id");
                    return rows.map(r => r.value);
                  } finally { await c.end(); }
                }

                http.createServer(async (req, res) => {
                  const u = new URL(req.url, "http://app");
                  res.setHeader("Content-Type", "application/json");
                  try {
                    if (u.pathname.startsWith("/roundtrip/")) {
                      res.end(JSON.stringify({ values: await roundtrip(decodeURIComponent(u.pathname.substring(11))) }));
                    } else if (u.pathname === "/info") {
                      res.end(JSON.stringify({ version, build_url_sha: build.url_sha, run_url_sha: url ? sha(url) : null,
                        database_url: url }));
                    } else {
                      res.end("{}");
                    }
                  } catch (e) {
                    res.statusCode = 500;
                    res.end(JSON.stringify({ error: String(e.message) }));
                  }
                }).listen(Number(process.env.PORT), "127.0.0.1", () => {
                  console.log("listening with DATABASE_URL " + url);
                  console.log("database password " + decodeURIComponent(new URL(url).password));
                });
                """);
        return files;
    }

    /** The same app with a build that fails. */
    static Map<String, String> failingBuild() {
        Map<String, String> files = version("broken");
        files.put("package.json", """
                {"name": "db-app", "version": "1.0.0", "private": true,
                 "scripts": {"build": "node build.js", "start": "node server.js"}}
                """);
        files.put("build.js", "console.error('compile error in build.js'); process.exit(3);\n");
        return files;
    }
}
