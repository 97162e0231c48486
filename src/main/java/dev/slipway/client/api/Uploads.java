package dev.slipway.client.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.client.context.Context;
import dev.slipway.client.context.UsageException;

import java.nio.file.Files;
import java.nio.file.Path;

/** {@code POST /v1/uploads}: a zip's raw bytes as {@code application/zip}. */
public final class Uploads {
    private Uploads() {}

    /** Checks before anything is sent that the file can be read (else exit 2). */
    public static Path readable(Path zip) {
        if (!Files.isRegularFile(zip) || !Files.isReadable(zip)) {
            throw new UsageException("--zip " + zip + " is not a readable file");
        }
        return zip;
    }

    /** Uploads the zip; its {@code upl_…} id. */
    public static String upload(Context ctx, Api api, Path zip, String idempotencyKey) {
        JsonNode upload = api.postFile("/uploads", zip, "application/zip", idempotencyKey).path("data");
        ctx.err().println("Uploaded " + zip + " (" + JsonTrees.text(upload, "size_bytes") + " bytes, sha256 "
                + JsonTrees.text(upload, "sha256") + ") as " + JsonTrees.text(upload, "id"));
        return JsonTrees.text(upload, "id");
    }
}
