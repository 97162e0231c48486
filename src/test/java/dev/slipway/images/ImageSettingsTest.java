package dev.slipway.images;

import dev.slipway.build.Artifact;
import org.junit.jupiter.api.Test;

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
        assertThat(ImageSettings.fromEnv(Map.of()).enabled()).isFalse();
        assertThat(ImageSettings.fromEnv(Map.of("SLIPWAY_IMAGE_REGISTRY", "  ")).enabled()).isFalse();
        ImageSettings on = ImageSettings.fromEnv(Map.of("SLIPWAY_IMAGE_REGISTRY", "127.0.0.1:5000/slipway",
                "SLIPWAY_IMAGE_BASES", "python=127.0.0.1:5000/py:3.11", "SLIPWAY_IMAGE_INSECURE", "true"));
        assertThat(on.enabled()).isTrue();
        assertThat(on.insecure()).isTrue();
        assertThat(on.bases()).containsEntry("python", "127.0.0.1:5000/py:3.11").containsEntry("node", "node:{version}-slim");
    }

    @Test
    void badValuesNameTheirVariable() {
        assertThatThrownBy(() -> ImageSettings.fromEnv(Map.of("SLIPWAY_IMAGE_REGISTRY", "http://x/../y")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("SLIPWAY_IMAGE_REGISTRY");
        assertThatThrownBy(() -> ImageSettings.fromEnv(Map.of("SLIPWAY_IMAGE_BASES", "ruby=ruby:3")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("SLIPWAY_IMAGE_BASES");
        assertThatThrownBy(() -> ImageSettings.fromEnv(Map.of("SLIPWAY_IMAGE_BASES", "node=node; rm -rf /")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("SLIPWAY_IMAGE_BASES");
        assertThatThrownBy(() -> ImageSettings.fromEnv(Map.of("SLIPWAY_IMAGE_INSECURE", "yes")))
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
}
