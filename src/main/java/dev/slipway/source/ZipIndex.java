package dev.slipway.source;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.Inflater;
import java.util.zip.InflaterInputStream;

/**
 * The central directory of a zip, read by hand because {@code java.util.zip} does not expose an entry's
 * external attributes, where the unix file type (symlinks) and mode (executable bit) are recorded. The
 * entry count is checked before the directory is read, so a zip claiming a million entries costs nothing.
 */
final class ZipIndex {
    private static final int EOCD = 0x06054b50, ZIP64_LOCATOR = 0x07064b50, ZIP64_EOCD = 0x06064b50;
    private static final int CEN = 0x02014b50, LOC = 0x04034b50;
    private static final long U32 = 0xFFFFFFFFL;
    private static final int MAX_COMMENT = 0xFFFF;

    /** One central-directory record; sizes are as declared, which {@link ZipExtractor} does not trust. */
    record Entry(String name, int madeBy, int flags, int method, long crc, long compressedSize, long declaredSize,
                 long localOffset, long externalAttributes) {
        private static final int S_IFMT = 0170000, S_IFDIR = 0040000, S_IFREG = 0100000, S_IFLNK = 0120000;

        private boolean unixHost() {
            int host = madeBy >>> 8;
            return host == 3 || host == 19; // unix, OS X
        }

        int unixMode() {
            return unixHost() ? (int) (externalAttributes >>> 16) & 0xFFFF : 0;
        }

        boolean isDirectory() {
            return name.endsWith("/") || (unixMode() & S_IFMT) == S_IFDIR || (!unixHost() && (externalAttributes & 0x10) != 0);
        }

        boolean isLink() {
            return (unixMode() & S_IFMT) == S_IFLNK || (!unixHost() && (externalAttributes & 0x400) != 0); // reparse point
        }

        /** A device, fifo or socket: neither a file, a directory nor a link. */
        boolean isSpecial() {
            int type = unixMode() & S_IFMT;
            return type != 0 && type != S_IFREG && type != S_IFDIR && type != S_IFLNK;
        }

        boolean isExecutable() {
            return (unixMode() & 0111) != 0;
        }

        boolean isEncrypted() {
            return (flags & 1) != 0;
        }
    }

    private final FileChannel channel;
    private final long size;
    private final List<Entry> entries;

    private ZipIndex(FileChannel channel, int maxEntries) throws IOException {
        this.channel = channel;
        this.size = channel.size();
        this.entries = readEntries(maxEntries);
    }

    /** Reads the central directory; refuses archives with more than {@code maxEntries}. */
    static ZipIndex read(FileChannel channel, int maxEntries) throws IOException {
        return new ZipIndex(channel, maxEntries);
    }

    /** The entries in central-directory order. */
    List<Entry> entries() {
        return entries;
    }

    long archiveSize() {
        return size;
    }

    private List<Entry> readEntries(int maxEntries) throws IOException {
        long eocd = findEndRecord();
        ByteBuffer end = readAt(eocd, 22);
        int disk = u16(end, 4), cenDisk = u16(end, 6);
        long count = u16(end, 10), cenSize = u32(end, 12), cenOffset = u32(end, 16);
        if (count == 0xFFFF || cenSize == U32 || cenOffset == U32) {
            if (eocd < 20) throw notZip();
            ByteBuffer locator = readAt(eocd - 20, 20);
            if (locator.getInt(0) != ZIP64_LOCATOR) throw notZip();
            long zip64 = locator.getLong(8);
            if (zip64 < 0 || zip64 > eocd - 56) throw notZip();
            ByteBuffer record = readAt(zip64, 56);
            if (record.getInt(0) != ZIP64_EOCD) throw notZip();
            disk = record.getInt(16);
            cenDisk = record.getInt(20);
            count = record.getLong(32);
            cenSize = record.getLong(40);
            cenOffset = record.getLong(48);
        } else if (disk == 0xFFFF || cenDisk == 0xFFFF) {
            throw notZip();
        }
        if (disk != 0 || cenDisk != 0) throw unsafe("Multi-part zip archives are not supported");
        if (count < 0 || count > maxEntries) {
            throw unsafe("The zip has more than " + maxEntries + " entries");
        }
        if (count == 0) throw new SourceException(SourceException.Reason.INVALID_INPUT, "The zip is empty");
        if (cenOffset < 0 || cenSize < 0 || cenOffset + cenSize > eocd) throw corrupt();

        List<Entry> list = new ArrayList<>((int) count);
        long pos = cenOffset, cenEnd = cenOffset + cenSize;
        for (int i = 0; i < count; i++) {
            if (pos + 46 > cenEnd) throw corrupt();
            ByteBuffer h = readAt(pos, 46);
            if (h.getInt(0) != CEN) throw corrupt();
            int nameLength = u16(h, 28), extraLength = u16(h, 30), commentLength = u16(h, 32);
            long next = pos + 46 + nameLength + extraLength + commentLength;
            if (next > cenEnd) throw corrupt();
            ByteBuffer nameAndExtra = readAt(pos + 46, nameLength + extraLength);
            byte[] nameBytes = new byte[nameLength];
            nameAndExtra.get(0, nameBytes);
            int flags = u16(h, 8);
            long compressed = u32(h, 20), declared = u32(h, 24), offset = u32(h, 42);
            // zip64 extended information: the 64-bit values, in this order, for the fields set to 0xFFFFFFFF
            for (int x = nameLength; x + 4 <= nameLength + extraLength; ) {
                int id = u16(nameAndExtra, x), length = u16(nameAndExtra, x + 2);
                int at = x + 4;
                if (at + length > nameLength + extraLength) throw corrupt();
                if (id == 0x0001) {
                    if (declared == U32) { declared = longAt(nameAndExtra, at, x + 4 + length); at += 8; }
                    if (compressed == U32) { compressed = longAt(nameAndExtra, at, x + 4 + length); at += 8; }
                    if (offset == U32) { offset = longAt(nameAndExtra, at, x + 4 + length); }
                }
                x += 4 + length;
            }
            list.add(new Entry(decodeName(nameBytes, flags), u16(h, 4), flags, u16(h, 10), u32(h, 16), compressed,
                    declared, offset, u32(h, 38)));
            pos = next;
        }
        return List.copyOf(list);
    }

    /** The entry's stored bytes, inflated when deflated; the caller counts what it reads. */
    InputStream open(Entry e) throws IOException {
        ByteBuffer local = readAt(e.localOffset(), 30);
        if (local.getInt(0) != LOC) throw corrupt();
        long start = e.localOffset() + 30 + u16(local, 26) + u16(local, 28);
        if (e.compressedSize() < 0 || start + e.compressedSize() > size) throw corrupt();
        InputStream raw = new Slice(start, start + e.compressedSize());
        return switch (e.method()) {
            case 0 -> raw;
            case 8 -> new RawInflaterStream(raw);
            default -> throw new IllegalStateException("method checked by the caller");
        };
    }

    private long findEndRecord() throws IOException {
        if (size < 22) throw notZip();
        int tailLength = (int) Math.min(size, 22 + MAX_COMMENT);
        ByteBuffer tail = readAt(size - tailLength, tailLength);
        for (int i = tailLength - 22; i >= 0; i--) {
            if (tail.getInt(i) == EOCD && i + 22 + u16(tail, i + 20) <= tailLength) return size - tailLength + i;
        }
        throw notZip();
    }

    private ByteBuffer readAt(long position, int length) throws IOException {
        if (position < 0 || position + length > size) throw corrupt();
        ByteBuffer buffer = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
        while (buffer.hasRemaining()) {
            if (channel.read(buffer, position + buffer.position()) < 0) throw corrupt();
        }
        return buffer.flip();
    }

    private static String decodeName(byte[] bytes, int flags) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            if ((flags & 0x800) != 0) throw unsafe("The zip has an entry name that is not valid UTF-8");
            // zips without the UTF-8 flag traditionally use the DOS code page
            Charset dos = Charset.isSupported("IBM437") ? Charset.forName("IBM437") : StandardCharsets.ISO_8859_1;
            return new String(bytes, dos);
        }
    }

    private static int u16(ByteBuffer b, int at) {
        return Short.toUnsignedInt(b.getShort(at));
    }

    private static long u32(ByteBuffer b, int at) {
        return Integer.toUnsignedLong(b.getInt(at));
    }

    private static long longAt(ByteBuffer b, int at, int limit) {
        if (at + 8 > limit) throw corrupt();
        long v = b.getLong(at);
        if (v < 0) throw corrupt();
        return v;
    }

    static SourceException notZip() {
        return new SourceException(SourceException.Reason.INVALID_INPUT, "The upload is not a zip archive");
    }

    static SourceException corrupt() {
        return new SourceException(SourceException.Reason.INVALID_INPUT, "The zip archive is corrupt");
    }

    private static SourceException unsafe(String message) {
        return new SourceException(SourceException.Reason.UNSAFE_ZIP, message);
    }

    /** A byte range of the file, read with positional reads (so entries can be read in any order). */
    private final class Slice extends InputStream {
        private long position;
        private final long end;

        Slice(long start, long end) {
            this.position = start;
            this.end = end;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (position >= end) return -1;
            int n = channel.read(ByteBuffer.wrap(b, off, (int) Math.min(len, end - position)), position);
            if (n < 0) return -1;
            position += n;
            return n;
        }
    }

    /**
     * Raw deflate (no zlib header); like {@code java.util.zip.ZipFile}, it feeds the inflater one dummy
     * byte at the end of the input, which raw inflation may need to see the end of the stream.
     */
    private static final class RawInflaterStream extends InflaterInputStream {
        private boolean dummyGiven;

        RawInflaterStream(InputStream in) {
            super(in, new Inflater(true), 64 * 1024);
        }

        @Override
        protected void fill() throws IOException {
            int n = in.read(buf, 0, buf.length);
            if (n == -1) {
                if (dummyGiven) throw new EOFException("Unexpected end of deflated data");
                dummyGiven = true;
                buf[0] = 0;
                n = 1;
            }
            len = n;
            inf.setInput(buf, 0, n);
        }

        @Override
        public void close() throws IOException {
            try {
                super.close();
            } finally {
                inf.end();
            }
        }
    }
}
