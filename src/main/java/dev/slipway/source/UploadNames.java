package dev.slipway.source;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * A name for the project of an uploaded zip, read from the zip without extracting it: the {@code name} of its
 * package.json, else of its pyproject.toml, else its single top folder. Reads at most {@link #MAX_READ} bytes
 * of a file, so a hostile zip cannot make the request expensive; anything unreadable gives no name.
 */
public final class UploadNames {
    static final int MAX_READ = 64 * 1024;
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Pattern TOML_NAME = Pattern.compile("(?m)^\\s*name\\s*=\\s*[\"']([^\"'\\n]{1,100})[\"']");

    private UploadNames() {}

    /** @param appDir the project's root directory in the zip, or null for the top */
    public static Optional<String> of(Path zip, String appDir) {
        try (ZipFile file = new ZipFile(zip.toFile())) {
            List<String> names = new ArrayList<>();
            Enumeration<? extends ZipEntry> entries = file.entries();
            while (entries.hasMoreElements() && names.size() < 100_000) names.add(entries.nextElement().getName());
            String top = singleTop(names);
            String base = (top == null ? "" : top + "/") + (appDir == null ? "" : appDir + "/");
            Optional<String> found = text(file, base + "package.json").flatMap(UploadNames::packageName)
                    .or(() -> text(file, base + "pyproject.toml").flatMap(UploadNames::pyprojectName));
            if (found.isPresent()) return found;
            if (appDir != null) return Optional.of(appDir.substring(appDir.lastIndexOf('/') + 1));
            return Optional.ofNullable(top);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private static String singleTop(List<String> names) {
        String top = null;
        for (String n : names) {
            int slash = n.indexOf('/');
            if (slash <= 0) return null; // a file at the top
            String first = n.substring(0, slash);
            if (top == null) top = first;
            else if (!top.equals(first)) return null;
        }
        return top == null || top.startsWith("__MACOSX") ? null : top;
    }

    private static Optional<String> text(ZipFile file, String name) {
        ZipEntry entry = file.getEntry(name);
        if (entry == null || entry.isDirectory()) return Optional.empty();
        try (InputStream in = file.getInputStream(entry)) {
            return Optional.of(new String(in.readNBytes(MAX_READ), StandardCharsets.UTF_8));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static Optional<String> packageName(String json) {
        try {
            JsonNode name = MAPPER.readTree(json).get("name");
            if (name == null || !name.isTextual() || name.asText().isBlank()) return Optional.empty();
            String n = name.asText();
            return Optional.of(n.startsWith("@") && n.contains("/") ? n.substring(n.indexOf('/') + 1) : n);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private static Optional<String> pyprojectName(String toml) {
        Matcher m = TOML_NAME.matcher(toml);
        return m.find() ? Optional.of(m.group(1)) : Optional.empty();
    }
}
