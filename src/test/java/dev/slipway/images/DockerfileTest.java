package dev.slipway.images;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.cloud.tools.jib.api.buildplan.AbsoluteUnixPath;
import com.google.cloud.tools.jib.api.buildplan.FileEntriesLayer;
import com.google.cloud.tools.jib.api.buildplan.FilePermissions;
import dev.slipway.accounts.Tier;
import dev.slipway.isolation.SandboxTools;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Apps;
import dev.slipway.testing.Await;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.GitServer;
import dev.slipway.testing.Http;
import dev.slipway.testing.Statuses;
import dev.slipway.testing.TestServer;
import dev.slipway.testing.TestStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Dockerfile builds from a git repository, on a base image made here (a static busybox as {@code /bin/sh}) in a
 * registry on loopback: a multi-stage build whose {@code RUN} is root in its own user namespace only, a rebuild that
 * reuses the unchanged steps' layers, a rollback, a Procfile's release line run in the image, a Go service and a Java
 * service built with Maven (whose {@code RUN} resolves and reaches Maven Central), and a hostile {@code RUN} that looks
 * for the host through {@code /proc} and the network and finds nothing. H2 only.
 */
@EndToEnd
class DockerfileTest {
    /** A deadline, not a goal: on a slow day beside the other test JVMs, the Go service's test took 162 s for its three builds. */
    private static final Duration RUN = Duration.ofMinutes(8);
    private static final String TOKEN = "tok-5e3cret-never-built-in";
    private static final String SERVE = """
            B=/bin/busybox
            $B mkdir -p /tmp/www
            echo "image:$VERSION $($B cat /www/index.html) runs as $($B id -u)" > /tmp/www/index.html
            exec $B httpd -f -p $PORT -h /tmp/www
            """;

    static LoopbackRegistry registry;
    static GitServer git;
    static TestServer server;
    static Http http;
    static String base;
    static Path files;

    @BeforeAll
    static void start() throws Exception {
        assertThat(SandboxTools.detect().missing()).as("the sandbox's tools (.ci/run installs them)").isEmpty();
        for (String tool : List.of("/usr/bin/buildah", "/usr/bin/newuidmap", "/usr/bin/skopeo", "/usr/bin/umoci", "/usr/bin/busybox")) {
            assertThat(Path.of(tool)).as(tool + ": apt-get install buildah uidmap skopeo umoci busybox-static (.ci/run installs them)")
                    .isExecutable();
        }
        registry = LoopbackRegistry.start();
        git = GitServer.start();
        server = TestServer.start(Dialect.H2, c -> c.gitHosts(git.hosts()).images(new ImageSettings(null, Map.of(), true)));
        http = server.tenant(Tier.TEAM).http();
        files = Files.createTempDirectory("slipway-dockerfile-");
        base = registry.pushBusybox("base/busybox:1");
    }

    @AfterAll
    static void stop() {
        if (server != null) server.close();
        if (git != null) git.close();
        if (registry != null) registry.close();
        if (files != null) TestStore.deleteTree(files);
    }

    /** A two-stage Dockerfile: the first stage writes a page in a RUN step, the second copies it and serves it. */
    private static Map<String, String> app(String version, String run) {
        return Map.of("Dockerfile", """
                        # the base is an argument, as teams write it
                        ARG BASE=%s
                        FROM ${BASE} AS build
                        ARG GREETING=unset
                        RUN /bin/busybox mkdir -p /out && %s
                        FROM ${BASE}
                        COPY --from=build /out /www
                        COPY serve.sh release.sh worker.sh /srv/
                        WORKDIR /srv
                        ENV VERSION=%s
                        CMD ["/bin/busybox", "sh", "serve.sh"]
                        """.formatted(base, run, version),
                "serve.sh", SERVE,
                "release.sh", "echo \"releasing $VERSION\"\n",
                "worker.sh", "echo \"worker $VERSION up\"\nexec /bin/busybox sleep 1000000\n",
                "Procfile", "release: /bin/busybox sh release.sh\nworker: /bin/busybox sh worker.sh\n");
    }

    @Test
    void aMultiStageDockerfileBuildsDeploysRebuildsFromItsLayersAndRollsBack() {
        String repo = "docker/web";
        git.createRepo(repo);
        // GREETING is a declared ARG, so the app's variable fills it; API_TOKEN is not one, so the build never sees it
        String built = "echo \"built as $(/bin/busybox id -u) greeting:$GREETING token:${API_TOKEN:-unset}\" > /out/index.html";
        git.commit(repo, "main", app("one", built), "one");
        var created = http.post("/v1/migrations", "{\"source\":\"github\",\"repo\":\"" + repo + "\","
                + "\"env_vars\":{\"GREETING\":\"hello from env\",\"API_TOKEN\":\"" + TOKEN + "\"}}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        JsonNode done = Statuses.await(http, "migrations", created.json().at("/data/id").asText(), "complete", RUN);
        assertThat(done.get("framework").asText()).isEqualTo("docker");
        String projectId = done.get("project_id").asText();
        String url = http.get("/v1/projects/" + projectId).json().at("/data/url").asText();
        String page = Apps.get(url).body();
        assertThat(page).as("root in the RUN step's own namespace; the app runs as the project's uid")
                .startsWith("image:one built as 0 greeting:hello from env token:unset runs as ").doesNotEndWith("runs as 0\n");
        String first = done.get("deployment_id").asText();
        Await.until(RUN, "the worker's first line in the deployment's log", () -> messages(first).contains("[worker] worker one up"));
        List<String> log = messages(first);
        assertThat(log).anyMatch(m -> m.startsWith("Image " + base + " is ")).anyMatch(m -> m.contains("STEP 3/3: RUN"))
                .anyMatch(m -> m.endsWith("; build arguments from the app's variables: GREETING"))
                .contains("releasing one").noneMatch(m -> m.contains(TOKEN));
        JsonNode processes = http.get("/v1/deployments/" + first).json().at("/data/processes");
        assertThat(processes).extracting(p -> p.get("type").asText()).containsExactly("web", "worker");

        git.commit(repo, "main", app("two", built), "two: only the final stage changed");
        String second = deploy(projectId);
        assertThat(Apps.get(url).body()).startsWith("image:two built as 0 greeting:hello from env ");
        assertThat(messages(second)).as("the first stage is unchanged: its layer is reused").anyMatch(m -> m.contains("Using cache"));

        var rollback = http.send("POST", "/v1/deployments/" + first + "/rollback", null, null);
        assertThat(rollback.status()).as(rollback.body()).isEqualTo(201);
        Statuses.await(http, "deployments", rollback.json().at("/data/id").asText(), "live", RUN);
        assertThat(Apps.get(url).body()).startsWith("image:one ");
    }

    /**
     * A Go service as teams write it: {@code go build} in a toolchain stage, the static binary alone in a
     * {@code scratch} stage. The toolchain image is made here from the machine's Go (its compiler, linker and
     * standard library sources; {@code apt-get install golang-go}).
     */
    @Test
    void aMultiStageGoServiceBuildsServesRedeploysAndRollsBack() throws Exception {
        String golang = goImage();
        String repo = "docker/go";
        git.createRepo(repo);
        git.commit(repo, "main", goApp(golang, "one"), "one");
        var created = http.post("/v1/migrations", "{\"source\":\"github\",\"repo\":\"" + repo + "\"}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        JsonNode done = Statuses.await(http, "migrations", created.json().at("/data/id").asText(), "complete", RUN);
        assertThat(done.get("framework").asText()).isEqualTo("docker");
        String projectId = done.get("project_id").asText();
        String url = http.get("/v1/projects/" + projectId).json().at("/data/url").asText();
        assertThat(Apps.get(url + "/hello").body()).isEqualTo("go:one /hello\n");

        git.commit(repo, "main", goApp(golang, "two"), "two");
        String second = deploy(projectId);
        assertThat(Apps.get(url).body()).isEqualTo("go:two /\n");
        assertThat(messages(second)).as("the toolchain stage is unchanged: not compiled again").anyMatch(m -> m.contains("Using cache"))
                .noneMatch(m -> m.contains("The project's layer cache held"))
                .as("the base image, unchanged in the registry, is not pulled again")
                .anyMatch(m -> m.startsWith("Base image ") && m.endsWith("is in the project's layer cache: not pulled again"))
                .noneMatch(m -> m.contains("Copying blob"));

        var rollback = http.send("POST", "/v1/deployments/" + done.get("deployment_id").asText() + "/rollback", null, null);
        assertThat(rollback.status()).as(rollback.body()).isEqualTo(201);
        Statuses.await(http, "deployments", rollback.json().at("/data/id").asText(), "live", RUN);
        assertThat(Apps.get(url).body()).isEqualTo("go:one /\n");
    }

    private static Map<String, String> goApp(String golang, String version) {
        return Map.of("go.mod", "module example.com/hello\n\ngo 1.19\n",
                "main.go", """
                        package main

                        import (
                        \t"fmt"
                        \t"net/http"
                        \t"os"
                        )

                        func main() {
                        \thttp.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
                        \t\tfmt.Fprintf(w, "go:%s %s\\n", os.Getenv("VERSION"), r.URL.Path)
                        \t})
                        \tif err := http.ListenAndServe(":"+os.Getenv("PORT"), nil); err != nil {
                        \t\tpanic(err)
                        \t}
                        }
                        """,
                "Dockerfile", """
                        FROM %s AS build
                        COPY go.mod main.go /src/
                        RUN cd /src && CGO_ENABLED=0 go build -trimpath -o /out/server . && rm -rf /tmp/go-cache
                        FROM scratch
                        COPY --from=build /out/server /server
                        ENV VERSION=%s
                        CMD ["/server"]
                        """.formatted(golang, version));
    }

    /** The machine's Go toolchain as a base image, with a busybox shell and the C library its {@code go} command needs. */
    private static String goImage() throws Exception {
        Path goroot = Path.of("/usr/lib/go-1.19").toRealPath();
        assertThat(goroot.resolve("bin/go")).as("apt-get install golang-go (.ci/run installs it)").isExecutable();
        FileEntriesLayer.Builder layer = FileEntriesLayer.builder().setName("go");
        FilePermissions exec = FilePermissions.fromOctalString("755");
        FilePermissions read = FilePermissions.fromOctalString("644");
        for (String at : List.of("/bin/busybox", "/bin/sh")) layer.addEntry(Path.of("/usr/bin/busybox"), AbsoluteUnixPath.get(at), exec);
        for (String lib : List.of("/lib64/ld-linux-x86-64.so.2", "/lib/x86_64-linux-gnu/libc.so.6")) {
            layer.addEntry(Path.of(lib).toRealPath(), AbsoluteUnixPath.get(lib), exec);
        }
        layer.addEntry(Files.createDirectories(files.resolve("empty")), AbsoluteUnixPath.get("/tmp"), FilePermissions.fromOctalString("777"));
        layer.addEntry(goroot.resolve("bin/go"), AbsoluteUnixPath.get("/usr/local/go/bin/go"), exec);
        layer.addEntry(goroot.resolve("VERSION"), AbsoluteUnixPath.get("/usr/local/go/VERSION"), read);
        for (String tool : List.of("compile", "link", "asm", "buildid", "pack")) {
            layer.addEntry(goroot.resolve("pkg/tool/linux_amd64/" + tool), AbsoluteUnixPath.get("/usr/local/go/pkg/tool/linux_amd64/" + tool), exec);
        }
        // the standard library's sources, without the commands, the tests and their data: what go build compiles
        for (String dir : List.of("src", "pkg/include")) {
            Path from = goroot.resolve(dir).toRealPath();
            try (var walk = Files.walk(from)) {
                for (Path f : (Iterable<Path>) walk::iterator) {
                    String rel = from.relativize(f).toString();
                    if (!Files.isRegularFile(f) || rel.startsWith("cmd/") || rel.contains("testdata/") || rel.endsWith("_test.go")) continue;
                    layer.addEntry(f, AbsoluteUnixPath.get("/usr/local/go/" + dir + "/" + rel), read);
                }
            }
        }
        return registry.push("base/golang:1.19", layer.build(), Map.of("PATH", "/usr/local/go/bin:/bin", "GOROOT", "/usr/local/go",
                "GOPATH", "/tmp/go", "GOCACHE", "/tmp/go-cache", "HOME", "/tmp"));
    }

    /**
     * A Java service as teams write it: {@code mvn package} in a JDK stage, with its plugins from Maven Central (which
     * a build reaches), the jar alone on a JRE in the final stage. Both images are made here from the machine's JDK
     * ({@code jlink}) and Maven.
     */
    @Test
    void aJavaServiceBuiltWithMavenInItsDockerfileServes() throws Exception {
        String jdk = javaImage("base/jdk:17", true);
        String jre = javaImage("base/jre:17", false);
        String repo = "docker/java";
        git.createRepo(repo);
        git.commit(repo, "main", Map.of("pom.xml", """
                        <project xmlns="http://maven.apache.org/POM/4.0.0">
                          <modelVersion>4.0.0</modelVersion>
                          <groupId>example</groupId>
                          <artifactId>hello</artifactId>
                          <version>1.0</version>
                          <properties>
                            <maven.compiler.release>17</maven.compiler.release>
                            <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
                          </properties>
                          <build>
                            <finalName>hello</finalName>
                            <plugins>
                              <plugin><artifactId>maven-resources-plugin</artifactId><version>3.3.1</version></plugin>
                              <plugin><artifactId>maven-compiler-plugin</artifactId><version>3.13.0</version></plugin>
                              <plugin><artifactId>maven-surefire-plugin</artifactId><version>3.5.2</version></plugin>
                              <plugin><artifactId>maven-jar-plugin</artifactId><version>3.4.2</version>
                                <configuration><archive><manifest><mainClass>hello.Main</mainClass></manifest></archive></configuration>
                              </plugin>
                            </plugins>
                          </build>
                        </project>
                        """,
                "src/main/java/hello/Main.java", """
                        package hello;

                        import com.sun.net.httpserver.HttpServer;
                        import java.net.InetSocketAddress;
                        import java.nio.charset.StandardCharsets;

                        public class Main {
                            public static void main(String[] args) throws Exception {
                                var server = HttpServer.create(new InetSocketAddress(Integer.parseInt(System.getenv("PORT"))), 0);
                                server.createContext("/", exchange -> {
                                    byte[] body = ("java:" + Runtime.version().feature() + " " + exchange.getRequestURI().getPath() + "\\n")
                                            .getBytes(StandardCharsets.UTF_8);
                                    exchange.sendResponseHeaders(200, body.length);
                                    exchange.getResponseBody().write(body);
                                    exchange.close();
                                });
                                server.start();
                            }
                        }
                        """,
                "Dockerfile", """
                        FROM %s AS build
                        WORKDIR /src
                        COPY pom.xml .
                        COPY src src
                        RUN mvn -B -q package -DskipTests
                        FROM %s
                        COPY --from=build /src/target/hello.jar /app/hello.jar
                        CMD ["java", "-jar", "/app/hello.jar"]
                        """.formatted(jdk, jre)), "a Maven service");
        var created = http.post("/v1/migrations", "{\"source\":\"github\",\"repo\":\"" + repo + "\"}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        JsonNode done = Statuses.await(http, "migrations", created.json().at("/data/id").asText(), "complete", RUN);
        assertThat(done.get("framework").asText()).isEqualTo("docker");
        String url = http.get("/v1/projects/" + done.get("project_id").asText()).json().at("/data/url").asText();
        assertThat(Apps.get(url + "/orders").body()).isEqualTo("java:17 /orders\n");
    }

    /**
     * The machine's JDK cut down with {@code jlink} as a base image: with the compiler and Maven ({@code mvn} on the
     * path, the machine's trust store) for a build stage, or the runtime and its HTTP server alone for a final one.
     */
    private static String javaImage(String name, boolean withMaven) throws Exception {
        Path jdkHome = Path.of("/usr/lib/jvm/java-17-openjdk-amd64");
        assertThat(jdkHome.resolve("jmods/java.base.jmod")).as("the machine's JDK 17 with its jmods (openjdk-17-jdk-headless)").exists();
        Path runtime = files.resolve(withMaven ? "jdk" : "jre");
        String modules = withMaven
                ? "java.base,java.compiler,java.instrument,java.logging,java.management,java.naming,java.net.http,java.scripting,"
                + "java.security.jgss,java.sql,java.xml,jdk.compiler,jdk.crypto.ec,jdk.httpserver,jdk.unsupported,jdk.zipfs"
                : "java.base,jdk.httpserver";
        Process jlink = new ProcessBuilder(jdkHome.resolve("bin/jlink").toString(), "--add-modules", modules, "--strip-debug",
                "--no-header-files", "--no-man-pages", "--output", runtime.toString()).redirectErrorStream(true).start();
        String said = new String(jlink.getInputStream().readAllBytes());
        assertThat(jlink.waitFor()).as("jlink: " + said).isZero();
        // the machine's trust store instead: Maven Central is reached through whatever authority this machine trusts
        Files.copy(Path.of("/etc/ssl/certs/java/cacerts"), runtime.resolve("lib/security/cacerts"), StandardCopyOption.REPLACE_EXISTING);
        FileEntriesLayer.Builder layer = FileEntriesLayer.builder().setName(withMaven ? "jdk" : "jre");
        FilePermissions exec = FilePermissions.fromOctalString("755");
        FilePermissions read = FilePermissions.fromOctalString("644");
        for (String at : List.of("/bin/busybox", "/bin/sh")) layer.addEntry(Path.of("/usr/bin/busybox"), AbsoluteUnixPath.get(at), exec);
        for (String lib : List.of("/lib64/ld-linux-x86-64.so.2", "/lib/x86_64-linux-gnu/libc.so.6", "/lib/x86_64-linux-gnu/libm.so.6",
                "/lib/x86_64-linux-gnu/libz.so.1", "/lib/x86_64-linux-gnu/libgcc_s.so.1", "/lib/x86_64-linux-gnu/libstdc++.so.6")) {
            layer.addEntry(Path.of(lib).toRealPath(), AbsoluteUnixPath.get(lib), exec);
        }
        layer.addEntry(Files.createDirectories(files.resolve("empty")), AbsoluteUnixPath.get("/tmp"), FilePermissions.fromOctalString("777"));
        addTree(layer, runtime, "/opt/java");
        Map<String, String> env = new java.util.HashMap<>(Map.of("PATH", "/opt/java/bin:/usr/local/bin:/bin", "JAVA_HOME", "/opt/java"));
        if (withMaven) {
            Path maven = Path.of("/usr/share/maven");
            assertThat(maven.resolve("bin/m2.conf")).as("apt-get install maven").exists();
            addTree(layer, maven.resolve("lib"), "/usr/share/maven/lib");
            addTree(layer, maven.resolve("conf").toRealPath(), "/usr/share/maven/conf");
            layer.addEntry(maven.resolve("bin/m2.conf").toRealPath(), AbsoluteUnixPath.get("/usr/share/maven/bin/m2.conf"), read);
            layer.addEntry(maven.resolve("boot/plexus-classworlds-2.x.jar").toRealPath(),
                    AbsoluteUnixPath.get("/usr/share/maven/boot/plexus-classworlds.jar"), read);
            // Maven's own launcher, without the utilities its script wants beyond a shell
            Path mvn = Files.writeString(files.resolve("mvn"), """
                    #!/bin/sh
                    exec java -classpath /usr/share/maven/boot/plexus-classworlds.jar -Dclassworlds.conf=/usr/share/maven/bin/m2.conf \
                      -Dmaven.home=/usr/share/maven -Dmaven.multiModuleProjectDirectory="$PWD" \
                      org.codehaus.plexus.classworlds.launcher.Launcher "$@"
                    """);
            layer.addEntry(mvn, AbsoluteUnixPath.get("/usr/local/bin/mvn"), exec);
            env.put("HOME", "/root");
        }
        return registry.push(name, layer.build(), env);
    }

    /** Adds a folder's files (symbolic links followed), keeping their executable bits. */
    private static void addTree(FileEntriesLayer.Builder layer, Path from, String at) throws Exception {
        try (var walk = Files.walk(from)) {
            for (Path f : (Iterable<Path>) walk::iterator) {
                if (!Files.isRegularFile(f)) continue;
                Path real = f.toRealPath();
                layer.addEntry(real, AbsoluteUnixPath.get(at + "/" + from.relativize(f)),
                        FilePermissions.fromOctalString(Files.isExecutable(real) ? "755" : "644"));
            }
        }
    }

    @Test
    void aHostileRunStepFindsNothingOfTheHost() {
        String repo = "docker/hostile";
        git.createRepo(repo);
        String data = server.store().dataDir().toString();
        String probe = ("B=/bin/busybox; {"
                + " echo \"uid $($B id -u)\";"
                + " echo \"host usr via proc $($B ls /proc/1/root/usr/bin 2>/dev/null | $B grep -c .)\";"
                + " if $B ls /proc/1/root" + data + " 2>/dev/null | $B grep -q .; then echo \"data dir seen\"; else echo \"data dir hidden\"; fi;"
                + " if $B cat /proc/1/root/etc/shadow >/dev/null 2>&1; then echo \"shadow read\"; else echo \"shadow unreadable\"; fi;"
                + " if $B nc -w 3 127.0.0.1 " + server.slipway().apiPort() + " </dev/null >/dev/null 2>&1; then echo \"api reached\"; else echo \"api unreachable\"; fi;"
                + " echo \"processes $($B ls /proc | $B grep -c '^[0-9]')\";"
                + " } > /out/index.html");
        git.commit(repo, "main", app("probe", probe), "probe");
        var created = http.post("/v1/migrations", "{\"source\":\"github\",\"repo\":\"" + repo + "\"}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        JsonNode done = Statuses.await(http, "migrations", created.json().at("/data/id").asText(), "complete", RUN);
        String url = http.get("/v1/projects/" + done.get("project_id").asText()).json().at("/data/url").asText();
        List<String> report = Apps.get(url).body().lines().toList();
        System.out.println("hostile RUN step reported: " + report);
        assertThat(report).hasSize(6);
        assertThat(report.get(0)).startsWith("image:probe uid 0");
        assertThat(report.subList(1, 5)).as("nothing of the builder's own view through /proc/1/root, nor the API")
                .containsExactly("host usr via proc 0", "data dir hidden", "shadow unreadable", "api unreachable");
        int processes = Integer.parseInt(report.get(5).replaceAll("^processes (\\d+).*$", "$1"));
        assertThat(processes).as("the build's own processes only").isLessThan(15);
    }

    @Test
    void aBrokenDockerfileAndAnUnknownBaseFailWithTheirReasons() {
        String repo = "docker/broken";
        git.createRepo(repo);
        git.commit(repo, "main", Map.of("Dockerfile", "FROM " + base + "\nRUN /bin/busybox false\n"), "broken");
        var created = http.post("/v1/migrations", "{\"source\":\"github\",\"repo\":\"" + repo + "\"}");
        JsonNode failed = Statuses.await(http, "migrations", created.json().at("/data/id").asText(), "failed", RUN);
        assertThat(messages(failed.get("deployment_id").asText())).anyMatch(m -> m.startsWith("Deployment failed: ") && m.contains("buildah"));

        String elsewhere = "docker/elsewhere";
        git.createRepo(elsewhere);
        Map<String, String> files = new java.util.HashMap<>(app("path", "echo elsewhere > /out/index.html"));
        files.put("deploy/web.Dockerfile", files.remove("Dockerfile"));
        git.commit(elsewhere, "main", files, "a Dockerfile in deploy/");
        var missing = http.post("/v1/migrations", "{\"source\":\"github\",\"repo\":\"" + elsewhere + "\",\"dockerfile_path\":\"deploy/api.Dockerfile\"}");
        JsonNode notThere = Statuses.await(http, "migrations", missing.json().at("/data/id").asText(), "failed", RUN);
        assertThat(messages(notThere.get("deployment_id").asText()))
                .anyMatch(m -> m.equals("Deployment failed: there is no Dockerfile at deploy/api.Dockerfile in the app's folder"));
        var found = http.post("/v1/migrations", "{\"source\":\"github\",\"repo\":\"" + elsewhere + "\",\"name\":\"elsewhere-found\","
                + "\"dockerfile_path\":\"deploy/web.Dockerfile\"}");
        JsonNode built = Statuses.await(http, "migrations", found.json().at("/data/id").asText(), "complete", RUN);
        JsonNode project = http.get("/v1/projects/" + built.get("project_id").asText()).json().get("data");
        assertThat(project.get("dockerfile_path").asText()).isEqualTo("deploy/web.Dockerfile");
        assertThat(Apps.get(project.get("url").asText()).body()).startsWith("image:path elsewhere");
        // buildah's storage lost while its marks of the bases it held stay: the build pulls them again
        Path buildah = server.store().dataDir().resolve("cache").resolve(project.get("id").asText()).resolve("buildah");
        for (String root : List.of("root", "overlay/root")) TestStore.deleteTree(buildah.resolve(root));
        String again = deploy(project.get("id").asText());
        assertThat(messages(again)).anyMatch(m -> m.endsWith("is not in the layer cache after all: pulling it"))
                .anyMatch(m -> m.contains("Copying blob"));
        assertThat(Apps.get(project.get("url").asText()).body()).startsWith("image:path elsewhere");
        var wrongKind = http.post("/v1/migrations", "{\"source\":\"github\",\"repo\":\"a/b\",\"framework\":\"node\","
                + "\"dockerfile_path\":\"Dockerfile\"}");
        assertThat(wrongKind.status()).as(wrongKind.body()).isEqualTo(400);

        String unknown = "docker/unknown";
        git.createRepo(unknown);
        git.commit(unknown, "main", Map.of("Dockerfile", "FROM " + registry.host() + "/no/such:1\nCMD [\"true\"]\n"), "unknown");
        var other = http.post("/v1/migrations", "{\"source\":\"github\",\"repo\":\"" + unknown + "\"}");
        JsonNode gone = Statuses.await(http, "migrations", other.json().at("/data/id").asText(), "failed", RUN);
        assertThat(messages(gone.get("deployment_id").asText())).anyMatch(m -> m.startsWith("Deployment failed: Cannot pull "
                + registry.host() + "/no/such:1: ") && m.contains("manifest unknown"));
    }

    private static String deploy(String projectId) {
        var r = http.post("/v1/deployments", "{\"project_id\":\"" + projectId + "\"}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        String id = r.json().at("/data/id").asText();
        Statuses.await(http, "deployments", id, "live", RUN);
        return id;
    }

    private static List<String> messages(String deploymentId) {
        List<String> out = new ArrayList<>();
        http.get("/v1/deployments/" + deploymentId + "/logs").json().at("/data/logs").forEach(e -> out.add(e.get("message").asText()));
        return out;
    }
}
