package dev.slipway.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;
import java.util.zip.Deflater;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/** Zip archives for tests: ordinary ones, and hostile ones that no well-behaved tool would write. */
public final class Zips {
    private Zips() {}

    /** An ordinary zip of text files written by {@code java.util.zip}; a name ending in '/' is a folder. */
    public static byte[] of(Map<String, String> files) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(bytes)) {
            for (var file : files.entrySet()) {
                zip.putNextEntry(new ZipEntry(file.getKey()));
                if (!file.getKey().endsWith("/")) zip.write(file.getValue().getBytes(StandardCharsets.UTF_8));
                zip.closeEntry();
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return bytes.toByteArray();
    }

    /**
     * Writes zips byte by byte, so a test can set what {@code java.util.zip} cannot: unix modes in the
     * external attributes (symlinks, executables), any name, and sizes in the headers that lie.
     */
    public static final class Builder {
        private record Entry(String name, byte[] data, boolean deflate, Integer unixMode, Long declaredSize, int flags) {}

        private final List<Entry> entries = new ArrayList<>();

        public Builder file(String name, String content) {
            return add(new Entry(name, content.getBytes(StandardCharsets.UTF_8), true, null, null, 0));
        }

        public Builder file(String name, byte[] data, boolean deflate) {
            return add(new Entry(name, data, deflate, null, null, 0));
        }

        /** A file with a unix mode, e.g. {@code 0100755} (executable) or {@code 0120777} (symlink, data = target). */
        public Builder unix(String name, int mode, String data) {
            return add(new Entry(name, data.getBytes(StandardCharsets.UTF_8), false, mode, null, 0));
        }

        /** A file whose central-directory header claims {@code declaredSize} bytes, whatever it holds. */
        public Builder lying(String name, byte[] data, boolean deflate, long declaredSize) {
            return add(new Entry(name, data, deflate, null, declaredSize, 0));
        }

        /** A file with the "encrypted" flag set. */
        public Builder encrypted(String name, String content) {
            return add(new Entry(name, content.getBytes(StandardCharsets.UTF_8), false, null, null, 1));
        }

        private Builder add(Entry e) {
            entries.add(e);
            return this;
        }

        public byte[] build() {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream central = new ByteArrayOutputStream();
            for (Entry e : entries) {
                byte[] name = e.name().getBytes(StandardCharsets.UTF_8);
                byte[] stored = e.deflate() ? deflate(e.data()) : e.data();
                CRC32 crc = new CRC32();
                crc.update(e.data());
                int method = e.deflate() ? 8 : 0;
                int flags = 0x800 | e.flags();
                long offset = out.size();
                ByteBuffer local = le(30 + name.length);
                local.putInt(0x04034b50).putShort((short) 20).putShort((short) flags).putShort((short) method)
                        .putShort((short) 0).putShort((short) 0x21).putInt((int) crc.getValue()).putInt(stored.length)
                        .putInt(e.data().length).putShort((short) name.length).putShort((short) 0).put(name);
                out.writeBytes(local.array());
                out.writeBytes(stored);
                long declared = e.declaredSize() != null ? e.declaredSize() : e.data().length;
                int madeBy = e.unixMode() != null ? (3 << 8) | 20 : 20;
                long external = e.unixMode() != null ? ((long) e.unixMode() << 16) : (e.name().endsWith("/") ? 0x10 : 0);
                ByteBuffer header = le(46 + name.length);
                header.putInt(0x02014b50).putShort((short) madeBy).putShort((short) 20).putShort((short) flags)
                        .putShort((short) method).putShort((short) 0).putShort((short) 0x21).putInt((int) crc.getValue())
                        .putInt(stored.length).putInt((int) declared).putShort((short) name.length).putShort((short) 0)
                        .putShort((short) 0).putShort((short) 0).putShort((short) 0).putInt((int) external)
                        .putInt((int) offset).put(name);
                central.writeBytes(header.array());
            }
            long cenOffset = out.size();
            out.writeBytes(central.toByteArray());
            ByteBuffer end = le(22);
            end.putInt(0x06054b50).putShort((short) 0).putShort((short) 0).putShort((short) entries.size())
                    .putShort((short) entries.size()).putInt(central.size()).putInt((int) cenOffset).putShort((short) 0);
            out.writeBytes(end.array());
            return out.toByteArray();
        }

        private static ByteBuffer le(int size) {
            return ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        }

        private static byte[] deflate(byte[] data) {
            Deflater deflater = new Deflater(Deflater.BEST_COMPRESSION, true);
            deflater.setInput(data);
            deflater.finish();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buf = new byte[64 * 1024];
            while (!deflater.finished()) out.write(buf, 0, deflater.deflate(buf));
            deflater.end();
            return out.toByteArray();
        }
    }
}
