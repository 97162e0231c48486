package dev.slipway.dashboard;

import dev.slipway.api.ApiException;
import dev.slipway.api.Requests;
import io.javalin.http.Context;
import jakarta.servlet.MultipartConfigElement;
import jakarta.servlet.http.Part;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A submitted dashboard form with files ({@code multipart/form-data}), read with a size bound: the files
 * together up to the server's upload limit, the text fields up to {@link Form#MAX_BYTES}. Files wait on disk
 * until the form is closed.
 */
final class FileForm implements AutoCloseable {
    /** Where Jetty looks for the multipart limits of a request; set per request, so only this form takes files. */
    private static final String MULTIPART_CONFIG = "org.eclipse.jetty.multipartConfig";
    private static final int IN_MEMORY_BYTES = 64 * 1024;

    private final Map<String, String> fields;
    private final Map<String, List<Part>> files;
    private final Collection<Part> parts;

    private FileForm(Map<String, String> fields, Map<String, List<Part>> files, Collection<Part> parts) {
        this.fields = fields;
        this.files = files;
        this.parts = parts;
    }

    static FileForm read(Context ctx, long maxFileBytes) {
        String type = ctx.header("Content-Type");
        if (type == null || !type.toLowerCase(Locale.ROOT).startsWith("multipart/form-data")) {
            throw new ApiException(415, "unsupported_media_type", "Files must be sent as multipart/form-data", null, Map.of());
        }
        long maxBytes = maxFileBytes + Form.MAX_BYTES;
        Requests.refuseDeclaredOver(ctx, maxBytes);
        ctx.req().setAttribute(MULTIPART_CONFIG, new MultipartConfigElement(
                System.getProperty("java.io.tmpdir"), maxFileBytes, maxBytes, IN_MEMORY_BYTES));
        Collection<Part> parts = parts(ctx, maxBytes);
        Map<String, String> fields = new LinkedHashMap<>();
        Map<String, List<Part>> files = new LinkedHashMap<>();
        FileForm form = new FileForm(fields, files, parts);
        try {
            long fieldBytes = 0;
            for (Part part : parts) {
                if (part.getSubmittedFileName() != null) {
                    files.computeIfAbsent(part.getName(), k -> new ArrayList<>()).add(part);
                    continue;
                }
                fieldBytes += part.getSize();
                if (fieldBytes > Form.MAX_BYTES) throw Requests.tooLarge(Form.MAX_BYTES);
                try (InputStream in = part.getInputStream()) {
                    fields.putIfAbsent(part.getName(), new String(in.readAllBytes(), StandardCharsets.UTF_8));
                }
            }
            return form;
        } catch (IOException e) {
            form.close();
            throw ApiException.invalid("The form could not be read", null);
        } catch (RuntimeException e) {
            form.close();
            throw e;
        }
    }

    private static Collection<Part> parts(Context ctx, long maxBytes) {
        try {
            return ctx.req().getParts();
        } catch (Exception e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                String message = String.valueOf(t.getMessage());
                if (message.startsWith("max length exceeded") || message.startsWith("max file size exceeded")) {
                    throw Requests.tooLarge(maxBytes);
                }
            }
            throw ApiException.invalid("The form could not be read: send it again, and zip a folder of about "
                    + "1,000 files or more before uploading it", null);
        }
    }

    /** The text field's (first) value, or null when absent. */
    String get(String name) {
        return fields.get(name);
    }

    /** The files sent under {@code name}, in the order sent; a file input left empty sends one with no name and no bytes. */
    List<Part> files(String name) {
        return files.getOrDefault(name, List.of());
    }

    /** Deletes the files written to disk. */
    @Override
    public void close() {
        for (Part part : parts) {
            try {
                part.delete();
            } catch (IOException | RuntimeException ignored) {
                // a temporary file left over holds only what its sender sent, and the OS cleans the temp folder
            }
        }
    }
}
