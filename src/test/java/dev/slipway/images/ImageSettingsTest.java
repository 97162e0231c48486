package dev.slipway.images;

import dev.slipway.core.Env;
import dev.slipway.build.Artifact;
import java.io.IOException;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The image settings as the environment gives them, and the base image each build gets. */
class ImageSettingsTest {
    @Test
    void offUnlessARegistryIsSet() {
        assertThat(ImageSettings.fromEnv(Env.of(Map.of())).enabled()).isFalse();
        assertThat(ImageSettings.fromEnv(Env.of(Map.of("SLIPWAY_IMAGE_REGISTRY", "  "))).enabled()).isFalse();
        ImageSettings on = ImageSettings.fromEnv(Env.of(Map.of("SLIPWAY_IMAGE_REGISTRY", "127.0.0.1:5000/slipway",
                "SLIPWAY_IMAGE_BASES", "python=127.0.0.1:5000/py:3.11", "SLIPWAY_IMAGE_INSECURE", "true")));
        assertThat(on.enabled()).isTrue();
        assertThat(on.insecure()).isTrue();
        assertThat(on.bases()).containsEntry("python", "127.0.0.1:5000/py:3.11").containsEntry("node", "node:{version}-slim");
    }

    @Test
    void badValuesNameTheirVariable() {
        assertThatThrownBy(() -> ImageSettings.fromEnv(Env.of(Map.of("SLIPWAY_IMAGE_REGISTRY", "http://x/../y"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("SLIPWAY_IMAGE_REGISTRY");
        assertThatThrownBy(() -> ImageSettings.fromEnv(Env.of(Map.of("SLIPWAY_IMAGE_BASES", "ruby=ruby:3"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("SLIPWAY_IMAGE_BASES");
        assertThatThrownBy(() -> ImageSettings.fromEnv(Env.of(Map.of("SLIPWAY_IMAGE_BASES", "node=node; rm -rf /"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("SLIPWAY_IMAGE_BASES");
        assertThatThrownBy(() -> ImageSettings.fromEnv(Env.of(Map.of("SLIPWAY_IMAGE_INSECURE", "yes"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("SLIPWAY_IMAGE_INSECURE");
    }

    @Test
    void nodeBuildsGetTheBaseOfTheirNodeVersion() {
        ImageBuilder images = new ImageBuilder(ImageSettings.OFF.withRegistry("127.0.0.1:5000"), null, Path.of("/tmp"), Clock.systemUTC());
        Artifact pinned = new Artifact("art_1", "prj_1", "node", null, Path.of("/a"), List.of("node", "s.js"), null,
                Instant.EPOCH, List.of(Path.of("/data/toolchains/node/20.11.1"), Path.of("/data/toolchains/pnpm/9.1.0")));
        Artifact machine = new Artifact("art_2", "prj_1", "node", null, Path.of("/a"), List.of("node", "s.js"), null, Instant.EPOCH);
        Artifact python = new Artifact("art_3", "prj_1", "python-fastapi", null, Path.of("/a"), List.of("python"), null, Instant.EPOCH);
        assertThat(images.base(pinned)).isEqualTo("node:20.11.1-slim");
        assertThat(images.base(machine)).isEqualTo("node:lts-slim");
        assertThat(images.base(python)).isEqualTo("python:3.11-slim");
    }

    @Test
    void pythonBuildsGetTheBaseOfTheirVenvsVersion_andRunOnItsInterpreterOnEveryAddress(@TempDir Path dir)
            throws IOException {
        ImageBuilder images = new ImageBuilder(ImageSettings.OFF.withRegistry("127.0.0.1:5000"), null, Path.of("/tmp"), Clock.systemUTC());
        Files.createDirectories(dir.resolve(".venv/lib/python3.12/site-packages"));
        Files.writeString(dir.resolve(".venv/pyvenv.cfg"), "home = /usr/bin\ninclude-system-site-packages = true\nversion = 3.12.1\n");
        String venvPython = dir.resolve(".venv/bin/python").toString();
        Artifact python = new Artifact("art_4", "prj_1", "python-fastapi", null, dir,
                List.of(venvPython, "-m", "uvicorn", "main:app", "--host", "127.0.0.1", "--port", "${PORT}"), null, Instant.EPOCH);
        assertThat(images.base(python)).isEqualTo("python:3.12-slim");
        assertThat(ImageBuilder.entrypoint(python)).containsExactly("python3", "-m", "uvicorn", "main:app", "--host", "0.0.0.0", "--port", "8080");
        assertThat(PythonImage.environment(python)).containsEntry("PYTHONPATH", "/app/.venv/lib/python3.12/site-packages");

        Artifact wsgi = new Artifact("art_5", "prj_1", "python", null, dir,
                List.of(venvPython, "-m", "gunicorn", "app:app", "--bind", "127.0.0.1:${PORT}"), null, Instant.EPOCH);
        assertThat(ImageBuilder.entrypoint(wsgi)).containsExactly("python3", "-m", "gunicorn", "app:app", "--bind", "0.0.0.0:8080");

        // a Node app's own programs are resolved into the build: in the image they are under /app
        Artifact next = new Artifact("art_6", "prj_1", "nextjs", null, dir,
                List.of(dir.resolve("node_modules/.bin/next").toString(), "start", "-p", "${PORT}", "-H", "127.0.0.1"), null, Instant.EPOCH);
        assertThat(ImageBuilder.entrypoint(next)).containsExactly("/app/node_modules/.bin/next", "start", "-p", "8080", "-H", "127.0.0.1");
    }
}
