package dev.slipway.build.oci;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.build.BuildException;
import dev.slipway.core.Json;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;

/**
 * Reads the layers of an image copied into an OCI layout, before anything is unpacked, and refuses the image when
 * unpacking it would write more than the limit: a layer's compressed size says nothing of that (a gigabyte of zeros
 * is a megabyte gzipped). Only the tar headers are read; the data is skipped through the decompressor.
 */
final class LayerScan {
    /** Entries of every layer together: a tree of a million files is not an app. */
    static final long MAX_ENTRIES = 1_000_000;

    private LayerScan() {}

    /**
     * @return the bytes the layers' files hold together (an upper bound of the unpacked size: a later layer's
     *         deletions are not subtracted)
     * @throws BuildException above {@code maxBytes}, or a layer of a compression it cannot read
     */
    static long unpackedBytes(Path layout, String tag, long maxBytes) throws IOException {
        JsonNode manifest = manifest(layout, tag);
        long total = 0;
        long entries = 0;
        for (JsonNode layer : manifest.path("layers")) {
            String type = layer.path("mediaType").asText("");
            try (InputStream in = open(layout, layer.path("digest").asText(""), type);
                 TarArchiveInputStream tar = new TarArchiveInputStream(in)) {
                TarArchiveEntry e;
                while ((e = tar.getNextEntry()) != null) {
                    if (e.isFile()) total += Math.max(0, e.getRealSize());
                    if (++entries > MAX_ENTRIES) throw new BuildException("the image holds more than " + MAX_ENTRIES + " files");
                    if (total > maxBytes) {
                        throw new BuildException("the image unpacks to more than " + (maxBytes >> 20) + " MB (the limit, "
                                + "SLIPWAY_IMAGE_MAX_MB); its layer " + layer.path("digest").asText("?") + " alone goes past it");
                    }
                }
            }
        }
        return total;
    }

    private static JsonNode manifest(Path layout, String tag) throws IOException {
        JsonNode index = Json.MAPPER.readTree(layout.resolve("index.json").toFile());
        for (JsonNode m : index.path("manifests")) {
            if (tag.equals(m.path("annotations").path("org.opencontainers.image.ref.name").asText())) {
                return Json.MAPPER.readTree(blob(layout, m.path("digest").asText("")).toFile());
            }
        }
        throw new IOException("the copied image has no manifest tagged " + tag);
    }

    private static InputStream open(Path layout, String digest, String mediaType) throws IOException {
        InputStream raw = new BufferedInputStream(Files.newInputStream(blob(layout, digest)), 1 << 16);
        if (mediaType.endsWith("+gzip") || mediaType.endsWith(".gzip")) return new GZIPInputStream(raw, 1 << 16);
        if (mediaType.endsWith(".tar") || mediaType.endsWith("layer.v1.tar")) return raw;
        raw.close();
        throw new BuildException("the image has a layer of type " + mediaType + ", which Slipway cannot unpack "
                + "(layers compressed with gzip, or not at all, can be)");
    }

    private static Path blob(Path layout, String digest) throws IOException {
        if (!digest.matches("sha256:[0-9a-f]{64}")) throw new IOException("a layer digest of the copied image is not sha256: " + digest);
        return layout.resolve("blobs/sha256").resolve(digest.substring("sha256:".length()));
    }
}
