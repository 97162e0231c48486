package dev.slipway.build.oci;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.core.Json;

import java.io.IOException;
import java.util.Optional;

/**
 * What {@code skopeo inspect} says of an image before anything is copied: the digest of its manifest as the registry
 * serves it (of the list, for a multi-platform image) and its platform; and from its raw manifest, the size of its
 * compressed layers, or which manifest of a list is this machine's.
 */
record Inspection(String digest, String os, String architecture) {
    static Inspection parse(String json) throws IOException {
        JsonNode root = Json.MAPPER.readTree(json);
        String digest = root.path("Digest").asText("");
        if (!digest.matches("sha256:[0-9a-f]{64}")) throw new IOException("the registry gave no sha256 digest for it");
        return new Inspection(digest, root.path("Os").asText(""), root.path("Architecture").asText(""));
    }

    /** A raw manifest: its layers' compressed bytes together, or empty for a list (see {@link #platform}). */
    static Optional<Long> layerBytes(String rawManifest) throws IOException {
        JsonNode root = Json.MAPPER.readTree(rawManifest);
        if (!root.has("layers")) return Optional.empty();
        long bytes = 0;
        for (JsonNode layer : root.path("layers")) bytes += Math.max(0, layer.path("size").asLong(0));
        return Optional.of(bytes);
    }

    /** The digest of the manifest for {@code os}/{@code architecture} in a raw manifest list, or empty. */
    static Optional<String> platform(String rawList, String os, String architecture) throws IOException {
        for (JsonNode m : Json.MAPPER.readTree(rawList).path("manifests")) {
            JsonNode p = m.path("platform");
            if (os.equals(p.path("os").asText()) && architecture.equals(p.path("architecture").asText())) {
                String digest = m.path("digest").asText("");
                if (digest.matches("sha256:[0-9a-f]{64}")) return Optional.of(digest);
            }
        }
        return Optional.empty();
    }
}
