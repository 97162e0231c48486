package dev.slipway.dashboard;

import dev.slipway.api.ApiException;
import io.javalin.http.Context;

import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;

/** The dashboard's stylesheet and script, served from the jar under a content-hashed URL (cached for good). */
public final class Assets {
    private record Asset(byte[] bytes, String type, String version) {}

    private static final Map<String, Asset> FILES = Map.of(
            "dashboard.css", load("dashboard.css", "text/css; charset=utf-8"),
            "dashboard.js", load("dashboard.js", "text/javascript; charset=utf-8"));
    static final String CSS = url("dashboard.css");
    static final String JS = url("dashboard.js");

    public void serve(Context ctx) {
        Asset a = FILES.get(ctx.pathParam("file"));
        if (a == null) throw ApiException.notFound("No such file");
        ctx.header("Cache-Control", "public, max-age=31536000, immutable");
        ctx.header("X-Content-Type-Options", "nosniff");
        ctx.contentType(a.type()).result(a.bytes());
    }

    private static String url(String name) {
        return "/dashboard/assets/" + name + "?v=" + FILES.get(name).version();
    }

    private static Asset load(String name, String type) {
        try (InputStream in = Assets.class.getResourceAsStream("/dashboard/" + name)) {
            if (in == null) throw new IllegalStateException("missing resource /dashboard/" + name);
            byte[] bytes = in.readAllBytes();
            String version = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes)).substring(0, 12);
            return new Asset(bytes, type, version);
        } catch (IOException | NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
