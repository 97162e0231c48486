package dev.slipway.build.docker;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** What the platform reads of a Dockerfile: the base images to pull, the arguments the app's variables fill. */
class DockerfileTextTest {
    private static final String DOCKERFILE = """
            # syntax=docker/dockerfile:1
            ARG GO=1.22
            ARG REGISTRY="registry.example.com:5000"
            FROM --platform=$BUILDPLATFORM ${REGISTRY}/golang:${GO} AS build
            ARG VERSION COMMIT=unknown
            RUN go build -ldflags "-X main.version=$VERSION" -o /app \\
                ./cmd/server
            FROM build AS test
            from ${REGISTRY}/distroless/static:${TAG:-nonroot} as final
            arg NPM_TOKEN
            COPY --from=build /app /app
            FROM scratch
            FROM $REGISTRY/golang:$GO
            """;

    @Test
    void stagesScratchArgumentsFlagsAndContinuationsAreReadAsTheBuilderReadsThem() {
        assertThat(DockerfileText.parse(DOCKERFILE).baseImages(Map.of())).containsExactly(
                "registry.example.com:5000/golang:1.22", "registry.example.com:5000/distroless/static:nonroot");
    }

    @Test
    void anArgumentGivenOverridesItsDefaultInTheFromLines() {
        assertThat(DockerfileText.parse(DOCKERFILE).baseImages(Map.of("GO", "1.23", "TAG", "ignored: declared in no ARG")))
                .containsExactly("registry.example.com:5000/golang:1.23", "registry.example.com:5000/distroless/static:nonroot");
    }

    @Test
    void everyStageDeclaresItsArguments() {
        assertThat(DockerfileText.parse(DOCKERFILE).arguments()).containsExactly("GO", "REGISTRY", "VERSION", "COMMIT", "NPM_TOKEN");
    }
}
