package dev.slipway.build.docker;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The base images a Dockerfile's FROM lines name: what the platform pulls before the build. */
class BaseImagesTest {
    @Test
    void stagesScratchArgumentsFlagsAndContinuationsAreReadAsTheBuilderReadsThem() {
        String dockerfile = """
                # syntax=docker/dockerfile:1
                ARG GO=1.22
                ARG REGISTRY="registry.example.com:5000"
                FROM --platform=$BUILDPLATFORM ${REGISTRY}/golang:${GO} AS build
                RUN go build -o /app \\
                    ./cmd/server
                FROM build AS test
                from ${REGISTRY}/distroless/static:${TAG:-nonroot} as final
                COPY --from=build /app /app
                FROM scratch
                FROM $REGISTRY/golang:$GO
                """;
        assertThat(BaseImages.of(dockerfile)).containsExactly(
                "registry.example.com:5000/golang:1.22", "registry.example.com:5000/distroless/static:nonroot");
    }
}
