package dev.slipway.source;

import dev.slipway.core.Sizes;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.zip.CRC32;
import java.util.zip.ZipException;

/**
 * Unpacks an uploaded zip into a workspace, refusing anything unsafe (DESIGN §3 Zip source): absolute
 * paths, {@code ..}, links, special files, too many entries, too many bytes, too high a ratio. Sizes are
 * counted while inflating; the headers' sizes only allow an early refusal. A zip whose files all sit in
 * one top-level folder is unwrapped. A refused zip leaves no workspace behind.
 */
public final class ZipExtractor {
    private static final Pattern DRIVE = Pattern.compile("^[A-Za-z]:");
    private static final String MAC_METADATA = "__MACOSX";

    /** @param maxRatio the most bytes unpacked per byte of zip */
    public record Limits(int maxEntries, long maxUnpackedBytes, long maxRatio) {
        public static final Limits DEFAULTS = new Limits(10_000, 500L * 1024 * 1024, 100);
    }

    /** What a zip holds, checked without unpacking it. */
    public record Summary(int files, long declaredBytes) {}

    private record Item(ZipIndex.Entry entry, String path, boolean directory) {}

    private final Limits limits;

    public ZipExtractor(Limits limits) {
        this.limits = limits;
    }

    /** Every check that needs no inflating: structure, names, links, counts, declared sizes. */
    public Summary inspect(Path zip) {
        try (FileChannel channel = FileChannel.open(zip, StandardOpenOption.READ)) {
            ZipIndex index = ZipIndex.read(channel, limits.maxEntries());
            List<Item> items = plan(index);
            return new Summary((int) items.stream().filter(i -> !i.directory()).count(), declaredBytes(items));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + zip, e);
        }
    }

    /** Unpacks {@code zip} into {@code workspace} (missing or empty) and returns the workspace. */
    public Path extract(Path zip, Path workspace) {
        Path root = workspace.toAbsolutePath().normalize();
        Workspaces.prepare(root);
        boolean done = false;
        try (FileChannel channel = FileChannel.open(zip, StandardOpenOption.READ)) {
            ZipIndex index = ZipIndex.read(channel, limits.maxEntries());
            List<Item> items = plan(index);
            long total = 0;
            byte[] buffer = new byte[64 * 1024];
            for (Item item : items) {
                Path target = root.resolve(item.path()).normalize();
                if (!target.startsWith(root) || target.equals(root)) throw unsafe("The zip has an unsafe path: " + shown(item.path()));
                if (item.directory()) {
                    Files.createDirectories(target);
                    continue;
                }
                Files.createDirectories(target.getParent());
                CRC32 crc = new CRC32();
                try (InputStream in = index.open(item.entry());
                     OutputStream out = Files.newOutputStream(target, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                    for (int n; (n = in.read(buffer)) != -1; ) {
                        total += n;
                        checkUnpacked(total, index.archiveSize());
                        crc.update(buffer, 0, n);
                        out.write(buffer, 0, n);
                    }
                }
                if (crc.getValue() != item.entry().crc()) throw ZipIndex.corrupt();
                if (item.entry().isExecutable() && root.getFileSystem().supportedFileAttributeViews().contains("posix")) {
                    Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwxr-xr-x"));
                }
            }
            done = true;
            return root;
        } catch (ZipException | EOFException e) {
            throw ZipIndex.corrupt();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot extract " + zip, e);
        } finally {
            if (!done) Workspaces.delete(root);
        }
    }

    /** The entries to write, in order, with their paths inside the workspace; refuses the unsafe. */
    private List<Item> plan(ZipIndex index) {
        List<Item> items = new ArrayList<>();
        List<List<String>> paths = new ArrayList<>();
        for (ZipIndex.Entry entry : index.entries()) {
            String name = entry.name().replace('\\', '/');
            if (name.indexOf('\0') >= 0) throw unsafe("The zip has an entry name with a NUL character");
            if (name.startsWith("/") || DRIVE.matcher(name).find()) throw unsafe("The zip has an absolute path: " + shown(name));
            List<String> parts = new ArrayList<>();
            for (String part : name.split("/")) {
                if (part.equals("..")) throw unsafe("The zip has a path that leaves its folder: " + shown(name));
                if (!part.isEmpty() && !part.equals(".")) parts.add(part);
            }
            if (parts.isEmpty() || parts.get(0).equals(MAC_METADATA)) continue;
            if (entry.isLink()) throw unsafe("The zip has a symbolic link, which is not allowed: " + shown(name));
            if (entry.isSpecial()) throw unsafe("The zip has a special file (device, fifo or socket): " + shown(name));
            if (entry.isEncrypted()) throw unsafe("The zip has an encrypted entry, which is not supported: " + shown(name));
            boolean directory = entry.isDirectory();
            if (!directory && entry.method() != 0 && entry.method() != 8) {
                throw unsafe("The zip uses compression method " + entry.method() + " (only stored and deflate are supported): "
                        + shown(name));
            }
            items.add(new Item(entry, null, directory));
            paths.add(parts);
        }
        int strip = singleTopFolder(items, paths) ? 1 : 0;
        List<Item> planned = new ArrayList<>(items.size());
        Map<String, Boolean> isDirectory = new HashMap<>();
        for (int i = 0; i < items.size(); i++) {
            List<String> parts = paths.get(i).subList(strip, paths.get(i).size());
            if (parts.isEmpty()) continue;
            Item item = items.get(i);
            for (int depth = 1; depth < parts.size(); depth++) {
                String ancestor = String.join("/", parts.subList(0, depth));
                if (Boolean.FALSE.equals(isDirectory.put(ancestor, true))) {
                    throw unsafe("The zip has a file and a folder both named " + shown(ancestor));
                }
            }
            String path = String.join("/", parts);
            Boolean before = isDirectory.put(path, item.directory());
            if (before != null && !(before && item.directory())) {
                throw unsafe("The zip has " + path(before, item.directory()) + " named " + shown(path) + " twice");
            }
            planned.add(new Item(item.entry(), path, item.directory()));
        }
        if (planned.stream().allMatch(Item::directory)) {
            throw new SourceException(SourceException.Reason.INVALID_INPUT, "The zip has no files");
        }
        long declared = declaredBytes(planned);
        if (declared > limits.maxUnpackedBytes()) throw tooLarge();
        if (declared > limits.maxRatio() * index.archiveSize()) throw ratio();
        return planned;
    }

    /** True when every entry is inside one folder (files at the top level rule it out). */
    private static boolean singleTopFolder(List<Item> items, List<List<String>> paths) {
        String top = null;
        for (int i = 0; i < items.size(); i++) {
            List<String> parts = paths.get(i);
            if (parts.size() == 1 && !items.get(i).directory()) return false;
            if (top == null) top = parts.get(0);
            else if (!top.equals(parts.get(0))) return false;
        }
        return top != null;
    }

    private void checkUnpacked(long total, long archiveSize) {
        if (total > limits.maxUnpackedBytes()) throw tooLarge();
        if (total > limits.maxRatio() * archiveSize) throw ratio();
    }

    private static long declaredBytes(List<Item> items) {
        long sum = 0;
        for (Item i : items) if (!i.directory()) sum += i.entry().declaredSize();
        return sum;
    }

    private SourceException tooLarge() {
        return unsafe("The zip unpacks to more than " + Sizes.human(limits.maxUnpackedBytes()));
    }

    private SourceException ratio() {
        return unsafe("The zip's compression ratio is over " + limits.maxRatio() + ":1 (a zip bomb?)");
    }

    private static String path(boolean first, boolean second) {
        return first == second ? (first ? "a folder" : "a file") : "a file and a folder";
    }

    /** An entry name as it may appear in a message: printable and short. */
    private static String shown(String name) {
        String printable = name.replaceAll("\\p{Cntrl}", "?");
        return printable.length() > 200 ? printable.substring(0, 200) + "…" : printable;
    }

    private static SourceException unsafe(String message) {
        return new SourceException(SourceException.Reason.UNSAFE_ZIP, message);
    }
}
