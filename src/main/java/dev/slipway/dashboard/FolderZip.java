package dev.slipway.dashboard;

import dev.slipway.api.ApiException;
import jakarta.servlet.http.Part;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * A folder chosen in the browser, packed into a zip. The browser sends one file part per file, named by its
 * path under the chosen folder's name ({@code webkitRelativePath}: {@code site/css/app.css}), so the zip is the
 * one a person would make of the folder: its files under one top folder, which unpacking unwraps, and whose
 * name names the project when nothing else does. Absolute paths and paths that climb out with {@code ..} are
 * refused before anything is written.
 */
final class FolderZip {
    private static final Pattern DRIVE = Pattern.compile("^[A-Za-z]:");

    private record Entry(String path, Part part) {}

    private final List<Entry> entries;

    private FolderZip(List<Entry> entries) {
        this.entries = entries;
    }

    /** The files to pack, checked; {@code parts} are the file parts the browser sent (those without a name are skipped). */
    static FolderZip of(List<Part> parts) {
        List<List<String>> paths = new ArrayList<>();
        List<Part> files = new ArrayList<>();
        for (Part part : parts) {
            String name = part.getSubmittedFileName();
            if (name == null || name.isEmpty()) continue;
            paths.add(segments(name.replace('\\', '/')));
            files.add(part);
        }
        if (files.isEmpty()) throw ApiException.invalid("The folder is empty: choose a folder with the app's files", null);
        List<Entry> entries = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < files.size(); i++) {
            String path = String.join("/", paths.get(i));
            if (!seen.add(path)) throw ApiException.invalid("The folder has two files named " + path, null);
            entries.add(new Entry(path, files.get(i)));
        }
        return new FolderZip(entries);
    }

    private static List<String> segments(String name) {
        if (name.indexOf('\0') >= 0) throw ApiException.invalid("The folder has a file name with a NUL character", null);
        if (name.startsWith("/") || DRIVE.matcher(name).find()) {
            throw ApiException.invalid("The folder has an absolute path: " + name, null);
        }
        List<String> segments = new ArrayList<>();
        for (String segment : name.split("/")) {
            if (segment.equals("..")) throw ApiException.invalid("The folder has a path that leaves it: " + name, null);
            if (!segment.isEmpty() && !segment.equals(".")) segments.add(segment);
        }
        if (segments.isEmpty()) throw ApiException.invalid("The folder has a file without a name", null);
        return segments;
    }

    /** Writes the zip to {@code out}, leaving it open. */
    void writeTo(OutputStream out) throws IOException {
        ZipOutputStream zip = new ZipOutputStream(out);
        for (Entry entry : entries) {
            zip.putNextEntry(new ZipEntry(entry.path()));
            try (InputStream in = entry.part().getInputStream()) {
                in.transferTo(zip);
            }
            zip.closeEntry();
        }
        zip.finish();
    }
}
