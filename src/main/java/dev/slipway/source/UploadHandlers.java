package dev.slipway.source;

import dev.slipway.api.Access;
import dev.slipway.api.ApiException;
import dev.slipway.api.Envelope;
import dev.slipway.api.Requests;
import dev.slipway.auth.Principal;
import dev.slipway.api.AppUrls;
import io.javalin.http.Context;

import java.util.Locale;
import java.util.Map;

/** {@code /v1/uploads}: receive a zip (streamed to disk through the {@link UploadIntake}) and read it back. */
public final class UploadHandlers {
    private static final String ZIP = "application/zip";

    private final UploadStore uploads;
    private final UploadIntake intake;
    private final AppUrls urls;

    public UploadHandlers(UploadStore uploads, UploadIntake intake, AppUrls urls) {
        this.uploads = uploads;
        this.intake = intake;
        this.urls = urls;
    }

    public void create(Context ctx) {
        Principal principal = Requests.principal(ctx);
        String type = ctx.header("Content-Type"); // raw: the servlet's parsed form throws on an unknown charset
        if (type == null || !type.split(";")[0].trim().toLowerCase(Locale.ROOT).equals(ZIP)) {
            throw new ApiException(415, "unsupported_media_type",
                    "Content-Type must be " + ZIP + " with the zip's bytes as the body", null, Map.of());
        }
        Upload upload = intake.receive(principal.account(), ctx.req().getContentLengthLong(),
                out -> Requests.stream(ctx, intake.maxBytes(), out));
        ctx.status(201).header("Location", urls.api("/v1/uploads/" + upload.id()));
        ctx.json(new Envelope<>(UploadView.of(upload)));
    }

    public void get(Context ctx) {
        String id = ctx.pathParam("upload_id");
        Upload upload = Access.owned(Requests.principal(ctx), uploads.find(id), Upload::accountId, "Upload", id);
        ctx.json(new Envelope<>(UploadView.of(upload)));
    }
}
