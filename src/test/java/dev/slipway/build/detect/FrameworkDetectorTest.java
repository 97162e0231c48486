package dev.slipway.build.detect;

import dev.slipway.build.BuildException;
import dev.slipway.build.Framework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FrameworkDetectorTest {
    @TempDir
    Path dir;

    private final FrameworkDetector detector = new FrameworkDetector();

    private Framework detect() {
        return detector.detect(dir, null).framework();
    }

    private void write(String file, String content) throws IOException {
        Files.writeString(dir.resolve(file), content);
    }

    @Test
    void nextInDependenciesIsNextjsEvenWithReact() throws IOException {
        write("package.json", """
                {"dependencies": {"next": "16.0.0", "react": "19.0.0", "react-dom": "19.0.0"}}""");
        assertThat(detect()).isEqualTo(Framework.NEXTJS);
        assertThat(detector.detect(dir, null).reason()).contains("next");
    }

    @Test
    void aDockerfileIsBuiltUnlessANativeKindIsSet() throws IOException {
        write("package.json", """
                {"dependencies": {"express": "5.0.0"}}""");
        write("Dockerfile", "FROM node:22\n");
        assertThat(detect()).isEqualTo(Framework.DOCKER);
        assertThat(detector.detect(dir, "node-express").framework()).isEqualTo(Framework.NODE_EXPRESS);
    }

    @Test
    void viteAndReactIsReactViteAcrossDependencyKinds() throws IOException {
        write("package.json", """
                {"dependencies": {"react": "19.0.0", "express": "5.0.0"}, "devDependencies": {"vite": "7.0.0"}}""");
        assertThat(detect()).isEqualTo(Framework.REACT_VITE);
    }

    @Test
    void viteWithoutReactIsNotReactVite() throws IOException {
        write("package.json", """
                {"devDependencies": {"vite": "7.0.0"}, "dependencies": {"express": "5.0.0"}}""");
        assertThat(detect()).isEqualTo(Framework.NODE_EXPRESS);
    }

    @Test
    void expressIsNodeExpress() throws IOException {
        write("package.json", """
                {"name": "x", "dependencies": {"express": "^5.1.0"}}""");
        assertThat(detect()).isEqualTo(Framework.NODE_EXPRESS);
    }

    @Test
    void fastapiInRequirementsWithExtrasVersionsAndComments() throws IOException {
        write("requirements.txt", """
                # web
                -r base.txt
                uvicorn==0.30
                FastAPI[all] >= 0.100  # the framework
                """);
        assertThat(detect()).isEqualTo(Framework.PYTHON_FASTAPI);
    }

    @Test
    void aPackageOnlyNamedLikeFastapiIsNotFastapi() throws IOException {
        write("requirements.txt", "fastapi-users==12\n# fastapi\n");
        assertThat(detect()).isEqualTo(Framework.PYTHON);
    }

    @Test
    void fastapiInPyprojectPep621AndPoetry() throws IOException {
        write("pyproject.toml", """
                [project]
                name = "svc"
                dependencies = ["fastapi>=0.110", "uvicorn"]
                """);
        assertThat(detect()).isEqualTo(Framework.PYTHON_FASTAPI);
        write("pyproject.toml", """
                [tool.poetry.dependencies]
                python = "^3.11"
                fastapi = "^0.110"
                """);
        assertThat(detect()).isEqualTo(Framework.PYTHON_FASTAPI);
    }

    @Test
    void explicitFrameworkOverridesDetection() throws IOException {
        write("package.json", """
                {"dependencies": {"next": "16.0.0"}}""");
        var d = detector.detect(dir, "node-express");
        assertThat(d.framework()).isEqualTo(Framework.NODE_EXPRESS);
        assertThat(d.reason()).isEqualTo("set on the project");
    }

    @Test
    void unknownExplicitFrameworkIsRefused() {
        assertThatThrownBy(() -> detector.detect(dir, "rails"))
                .isInstanceOf(BuildException.class)
                .hasMessageContaining("unknown framework \"rails\"")
                .hasMessageContaining("nextjs, react-vite, node-express, python-fastapi");
    }

    @Test
    void nothingDetectedNamesWhatWasLookedFor() throws IOException {
        write("package.json", """
                {"dependencies": {"koa": "2.0.0"}}""");
        assertThatThrownBy(this::detect)
                .isInstanceOf(BuildException.class)
                .hasMessageContaining("package.json (found)")
                .hasMessageContaining("with a framework, a start script, a main or index.js")
                .hasMessageContaining("requirements.txt, pyproject.toml or manage.py")
                .hasMessageContaining("index.html");
    }

    @Test
    void emptyDirectorySaysPackageJsonWasNotFound() {
        assertThatThrownBy(this::detect).isInstanceOf(BuildException.class).hasMessageContaining("package.json (not found)");
    }

    @Test
    void malformedPackageJsonIsAClearError() throws IOException {
        write("package.json", "{\"dependencies\": {\"express\": \"5\",}");
        assertThatThrownBy(this::detect).isInstanceOf(BuildException.class).hasMessageStartingWith("package.json is not valid JSON");
        write("package.json", "[1, 2]");
        assertThatThrownBy(this::detect).isInstanceOf(BuildException.class).hasMessageContaining("must hold a JSON object");
        write("package.json", "{\"dependencies\": [\"express\"]}");
        assertThatThrownBy(this::detect).isInstanceOf(BuildException.class).hasMessageContaining("\"dependencies\" must be an object");
    }

    @Test
    void theGenericKindsTakeWhatNamesNoKnownFramework() throws IOException {
        write("package.json", """
                {"devDependencies": {"vite": "7.0.0", "vue": "3.5.0"}, "scripts": {"build": "vite build"}}""");
        assertThat(detect()).isEqualTo(Framework.STATIC);
        write("package.json", """
                {"dependencies": {"fastify": "5.0.0"}, "scripts": {"start": "node server.js"}}""");
        assertThat(detect()).isEqualTo(Framework.NODE);
        assertThat(detector.detect(dir, null).reason()).isEqualTo("package.json has a start script");
        write("package.json", """
                {"dependencies": {"next": "16.0.0"}, "scripts": {"build": "next build"}}""");
        assertThat(detect()).isEqualTo(Framework.NEXTJS);
        write("next.config.mjs", "const nextConfig = {\n  output: \"export\",\n};\nexport default nextConfig;\n");
        assertThat(detect()).isEqualTo(Framework.STATIC);
        assertThat(detector.detect(dir, null).reason()).contains("output: 'export'");
    }

    @Test
    void pythonAppsAndPlainSites() throws IOException {
        write("requirements.txt", "flask\ngunicorn\n");
        assertThat(detect()).isEqualTo(Framework.PYTHON);
        Files.delete(dir.resolve("requirements.txt"));
        write("manage.py", "import os\n");
        assertThat(detect()).isEqualTo(Framework.PYTHON);
        Files.delete(dir.resolve("manage.py"));
        write("index.html", "<!doctype html>");
        assertThat(detect()).isEqualTo(Framework.STATIC);
        assertThat(detector.detect(dir, null).reason()).contains("index.html at the root");
    }

    @Test
    void sveltekitIsAServerWithAdapterNodeASiteWithAdapterStaticAndRefusedWithAdapterAuto() throws IOException {
        write("package.json", """
                {"devDependencies": {"@sveltejs/kit": "^2.63.0", "@sveltejs/adapter-node": "^5.5.4", "vite": "^8.0.16", "svelte": "^5"}}""");
        var node = detector.detect(dir, null);
        assertThat(node.framework()).isEqualTo(Framework.NODE);
        assertThat(node.stack()).isEqualTo(Stack.SVELTEKIT);
        assertThat(node.reason()).contains("adapter-node");
        write("package.json", """
                {"devDependencies": {"@sveltejs/kit": "^2.63.0", "@sveltejs/adapter-static": "^3", "vite": "^8.0.16"}}""");
        assertThat(detect()).isEqualTo(Framework.STATIC);
        write("package.json", """
                {"devDependencies": {"@sveltejs/kit": "^2.63.0", "@sveltejs/adapter-auto": "^7", "vite": "^8.0.16"}}""");
        assertThatThrownBy(this::detect).isInstanceOf(BuildException.class)
                .hasMessageContaining("adapter-auto builds nothing").hasMessageContaining("@sveltejs/adapter-node");
    }

    @Test
    void nuxtIsANitroServerUnlessItsBuildGenerates() throws IOException {
        write("package.json", """
                {"scripts": {"build": "nuxt build"}, "dependencies": {"nuxt": "^4.2.0", "vue": "^3.5.0"}}""");
        assertThat(detect()).isEqualTo(Framework.NODE);
        assertThat(detector.detect(dir, null).stack()).isEqualTo(Stack.NUXT);
        write("package.json", """
                {"scripts": {"build": "nuxt generate"}, "dependencies": {"nuxt": "^4.2.0", "vue": "^3.5.0"}}""");
        assertThat(detect()).isEqualTo(Framework.STATIC);
    }

    @Test
    void reactRouterIsAServerInFrameworkModeAndASiteWithSsrOff() throws IOException {
        write("package.json", """
                {"scripts": {"start": "react-router-serve ./build/server/index.js"},
                 "dependencies": {"react": "^19", "react-router": "^7"}, "devDependencies": {"@react-router/dev": "^7", "vite": "^7"}}""");
        write("react-router.config.ts", "export default { ssr: true } satisfies Config;\n");
        assertThat(detect()).isEqualTo(Framework.NODE);
        write("react-router.config.ts", "export default {\n  ssr: false,\n} satisfies Config;\n");
        assertThat(detect()).isEqualTo(Framework.STATIC);
        assertThat(detector.detect(dir, null).stack().siteDir).isEqualTo("build/client");
    }

    @Test
    void anExplicitFrameworkKeepsTheStackItsPackageDeclares() throws IOException {
        write("package.json", """
                {"dependencies": {"@nestjs/core": "^11"}, "scripts": {"start": "nest start"}}""");
        var d = detector.detect(dir, "node");
        assertThat(d.stack()).isEqualTo(Stack.NESTJS);
        assertThat(detector.detect(dir, null).reason()).contains("NestJS");
    }

    @Test
    void aGoOrMavenProjectIsToldToBringADockerfile() throws IOException {
        write("go.mod", "module example.com/api\n\ngo 1.22\n");
        assertThatThrownBy(this::detect).isInstanceOf(BuildException.class)
                .hasMessageContaining("found go.mod (a Go module), which is built from a Dockerfile: add a Dockerfile");
        Files.delete(dir.resolve("go.mod"));
        write("pom.xml", "<project/>");
        assertThatThrownBy(this::detect).hasMessageContaining("pom.xml (a Maven project)");
    }
}
