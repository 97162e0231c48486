package dev.slipway.source;

import dev.slipway.core.Digests;
import dev.slipway.accounts.Account;
import dev.slipway.accounts.Tier;
import dev.slipway.api.ApiException;
import dev.slipway.api.Requests;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;

/**
 * How a zip becomes an account's upload, wherever it comes from (the API's body, the dashboard's form): written
 * to disk with a size bound and hashed, checked like every zip source (unsafe paths, links, sizes), and kept only
 * within the tier's quota. A refused zip leaves nothing behind.
 */
public final class UploadIntake {
    /** Writes the zip's bytes to {@code out}. */
    @FunctionalInterface
    public interface Source {
        void writeTo(OutputStream out) throws IOException;
    }

    private final UploadStore uploads;
    private final ZipExtractor zips;
    private final long maxBytes;

    public UploadIntake(UploadStore uploads, ZipExtractor zips, long maxBytes) {
        this.uploads = uploads;
        this.zips = zips;
        this.maxBytes = maxBytes;
    }

    /** The largest zip taken, in bytes (the server's upload limit). */
    public long maxBytes() { return maxBytes; }

    /**
     * Receives a zip for the account.
     *
     * @param declaredBytes the size announced before reading (a Content-Length), or -1: refused early when over the quota
     * @throws ApiException 400 for an empty or unsafe zip, 413 past the size limit or the tier's quota
     */
    public Upload receive(Account account, long declaredBytes, Source source) {
        Tier tier = account.tier();
        long kept0 = uploads.bytesKept(account.id());
        if (declaredBytes > 0 && kept0 + declaredBytes > tier.uploadBytes()) throw overQuota(tier, kept0);
        Path incoming = uploads.incomingFile();
        boolean kept = false;
        try {
            MessageDigest sha256 = Digests.sha256();
            Bounded out = new Bounded(new DigestOutputStream(Files.newOutputStream(incoming), sha256), maxBytes);
            try (out) {
                source.writeTo(out);
            }
            long size = out.count;
            if (size == 0) throw ApiException.invalid("The body is empty: send the zip's bytes", null);
            if (kept0 + size > tier.uploadBytes()) throw overQuota(tier, kept0);
            try {
                zips.inspect(incoming);
            } catch (SourceException e) {
                throw e.toApiException(null);
            }
            UploadStore.Saved saved = uploads.save(account.id(), incoming, size, HexFormat.of().formatHex(sha256.digest()),
                    tier.uploadBytes());
            Upload upload = saved.upload().orElseThrow(() -> overQuota(tier, saved.keptBefore()));
            kept = true;
            return upload;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot receive upload", e);
        } finally {
            if (!kept) deleteQuietly(incoming);
        }
    }

    private static ApiException overQuota(Tier tier, long keptBytes) {
        return new ApiException(413, "payload_too_large", "The " + tier.label() + " tier keeps " + tier.uploadBytes() / (1024 * 1024)
                + " MB of uploads per account and " + (keptBytes / (1024 * 1024)) + " MB are kept now; uploads are deleted "
                + tier.uploadDays() + " days after they were sent, once no run waits for them", null, Map.of());
    }


    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // a leftover .part file holds no account's data that anything reads
        }
    }

    /** Counts what passes, and refuses (413) past the limit: a zip packed on the server has no Content-Length to check. */
    private static final class Bounded extends FilterOutputStream {
        private final long limit;
        long count;

        Bounded(OutputStream out, long limit) {
            super(out);
            this.limit = limit;
        }

        @Override
        public void write(int b) throws IOException {
            grow(1);
            out.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            grow(len);
            out.write(b, off, len);
        }

        private void grow(int n) {
            count += n;
            if (count > limit) throw Requests.tooLarge(limit);
        }
    }
}
