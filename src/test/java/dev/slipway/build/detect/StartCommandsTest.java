package dev.slipway.build.detect;

import dev.slipway.build.BuildException;
import dev.slipway.build.PackageJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StartCommandsTest {
    @TempDir
    Path root;

    private PackageJson pkg(String json) throws IOException {
        Files.writeString(root.resolve("package.json"), json);
        return PackageJson.read(root).orElseThrow();
    }

    private Path bin(String dir, String name) throws IOException {
        Path p = Files.createDirectories(root.resolve(dir)).resolve(name);
        Files.writeString(p, "#!/usr/bin/env node\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        return p;
    }

    @Test
    void plainNodeStartScriptRunsNodeDirectly() throws IOException {
        assertThat(StartCommands.express(root, pkg("""
                {"scripts": {"start": "node --enable-source-maps dist/server.js --port $PORT"}}""")))
                .containsExactly("node", "--enable-source-maps", "dist/server.js", "--port", "${PORT}");
    }

    @Test
    void scriptsThatNeedAShellOrHaveHooksGoThroughNpmStart() throws IOException {
        assertThat(StartCommands.express(root, pkg("""
                {"scripts": {"start": "npm run migrate && node server.js"}}"""))).containsExactly("npm", "start");
        assertThat(StartCommands.express(root, pkg("""
                {"scripts": {"start": "NODE_ENV=production node server.js"}}"""))).containsExactly("npm", "start");
        assertThat(StartCommands.express(root, pkg("""
                {"scripts": {"start": "node server.js", "prestart": "node migrate.js"}}"""))).containsExactly("npm", "start");
        assertThat(StartCommands.express(root, pkg("""
                {"scripts": {"start": "unknown-tool serve"}}"""))).containsExactly("npm", "start");
    }

    @Test
    void aProgramFromNodeModulesBinIsResolvedToItsPath() throws IOException {
        Path serve = bin("node_modules/.bin", "serve");
        assertThat(StartCommands.express(root, pkg("""
                {"scripts": {"start": "serve -l $PORT"}}"""))).containsExactly(serve.toString(), "-l", "${PORT}");
    }

    @Test
    void withoutStartScriptMainThenIndexJs() throws IOException {
        Files.writeString(root.resolve("app.js"), "");
        assertThat(StartCommands.express(root, pkg("{\"main\": \"app.js\"}"))).containsExactly("node", "app.js");
        assertThatThrownBy(() -> StartCommands.express(root, pkg("{\"main\": \"dist/missing.js\"}")))
                .isInstanceOf(BuildException.class).hasMessageContaining("\"dist/missing.js\" does not exist");
        assertThatThrownBy(() -> StartCommands.express(root, pkg("{\"main\": \"../../etc/passwd\"}")))
                .isInstanceOf(BuildException.class).hasMessageContaining("outside the app");
        assertThatThrownBy(() -> StartCommands.express(root, pkg("{}")))
                .isInstanceOf(BuildException.class).hasMessageContaining("no start script and no main, and there is no index.js");
        Files.writeString(root.resolve("index.js"), "");
        assertThat(StartCommands.express(root, pkg("{}"))).containsExactly("node", "index.js");
    }

    @Test
    void nextStartGetsThePortAndLoopbackUnlessTheAppChose() throws IOException {
        String next = root.resolve("node_modules/.bin/next").toString();
        assertThat(StartCommands.nextjs(root, pkg("{}"))).containsExactly(next, "start", "-p", "${PORT}", "-H", "127.0.0.1");
        assertThat(StartCommands.nextjs(root, pkg("""
                {"scripts": {"start": "next start --port=$PORT -H 0.0.0.0"}}""")))
                .containsExactly(next, "start", "--port=${PORT}", "-H", "0.0.0.0");
        assertThat(StartCommands.nextjs(root, pkg("""
                {"scripts": {"start": "node server.js"}}"""))).containsExactly("node", "server.js");
    }

    @Test
    void procfileProgramsResolveAgainstTheAppsOwnBins() throws IOException {
        Path uvicorn = bin(".venv/bin", "uvicorn");
        assertThat(StartCommands.procfile(root, List.of("uvicorn", "api:app", "--port", "${PORT}")))
                .containsExactly(uvicorn.toString(), "api:app", "--port", "${PORT}");
        assertThat(StartCommands.procfile(root, List.of("node", "x.js"))).containsExactly("node", "x.js");
        assertThat(StartCommands.procfile(root, List.of("./run.sh"))).containsExactly("./run.sh");
    }

    @Test
    void fastapiModuleIsFoundInMainAppOrServer() throws IOException {
        Files.writeString(root.resolve("main.py"), "import os\n# app = FastAPI() in a comment does not count\n");
        Files.writeString(root.resolve("app.py"), "from fastapi import FastAPI\n\napp: FastAPI = FastAPI(title='x')\n");
        assertThat(PythonApps.fastapi(root).module()).isEqualTo("app");
        Files.delete(root.resolve("app.py"));
        assertThatThrownBy(() -> PythonApps.fastapi(root)).isInstanceOf(BuildException.class)
                .hasMessageContaining("\"app = FastAPI(\" in main.py, app.py, server.py");
    }
}
