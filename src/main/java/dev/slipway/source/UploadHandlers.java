package dev.slipway.source;

import dev.slipway.api.Access;
import dev.slipway.accounts.Tier;
import dev.slipway.api.ApiException;
import dev.slipway.api.Envelope;
import dev.slipway.api.Requests;
import dev.slipway.auth.Principal;
import dev.slipway.api.AppUrls;
import io.javalin.http.Context;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;

/** {@code /v1/uploads}: receive a zip (streamed to disk, hashed, checked) and read it back. */
public final class UploadHandlers {
    private static final String ZIP = "application/zip";

    private final UploadStore uploads;
    private final ZipExtractor zips;
    private final AppUrls urls;
    private final long maxBytes;

    public UploadHandlers(UploadStore uploads, ZipExtractor zips, AppUrls urls, long maxBytes) {
        this.uploads = uploads;
        this.zips = zips;
        this.urls = urls;
        this.maxBytes = maxBytes;
    }

    public void create(Context ctx) {
        Principal principal = Requests.principal(ctx);
        String type = ctx.header("Content-Type"); // raw: the servlet's parsed form throws on an unknown charset
        if (type == null || !type.split(";")[0].trim().toLowerCase(Locale.ROOT).equals(ZIP)) {
            throw new ApiException(415, "unsupported_media_type",
                    "Content-Type must be " + ZIP + " with the zip's bytes as the body", null, Map.of());
        }
        Tier tier = principal.account().tier();
        long kept0 = uploads.bytesKept(principal.accountId());
        long declared = ctx.req().getContentLengthLong();
        if (declared > 0 && kept0 + declared > tier.uploadBytes()) throw overQuota(tier, kept0);
        Path incoming = uploads.incomingFile();
        boolean kept = false;
        try {
            MessageDigest sha256 = sha256();
            long size;
            try (OutputStream out = new DigestOutputStream(Files.newOutputStream(incoming), sha256)) {
                size = Requests.stream(ctx, maxBytes, out);
            }
            if (size == 0) throw ApiException.invalid("The body is empty: send the zip's bytes", null);
            if (kept0 + size > tier.uploadBytes()) throw overQuota(tier, kept0);
            try {
                zips.inspect(incoming);
            } catch (SourceException e) {
                throw e.toApiException(null);
            }
            UploadStore.Saved saved = uploads.save(principal.accountId(), incoming, size, HexFormat.of().formatHex(sha256.digest()),
                    tier.uploadBytes());
            Upload upload = saved.upload().orElseThrow(() -> overQuota(tier, saved.keptBefore()));
            kept = true;
            ctx.status(201).header("Location", urls.api("/v1/uploads/" + upload.id()));
            ctx.json(new Envelope<>(UploadView.of(upload)));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot receive upload", e);
        } finally {
            if (!kept) deleteQuietly(incoming);
        }
    }

    public void get(Context ctx) {
        String id = ctx.pathParam("upload_id");
        Upload upload = Access.owned(Requests.principal(ctx), uploads.find(id), Upload::accountId, "Upload", id);
        ctx.json(new Envelope<>(UploadView.of(upload)));
    }

    private static ApiException overQuota(Tier tier, long keptBytes) {
        return new ApiException(413, "payload_too_large", "The " + tier.label() + " tier keeps " + tier.uploadBytes() / (1024 * 1024)
                + " MB of uploads per account and " + (keptBytes / (1024 * 1024)) + " MB are kept now; uploads are deleted "
                + tier.uploadDays() + " days after they were sent, once no run waits for them", null, Map.of());
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // a leftover .part file holds no account's data that anything reads
        }
    }
}
