package dev.slipway.build.oci;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An image reference as a client gives it: {@code [host[:port]/]path[:tag][@sha256:<digest>]}, the grammar of the
 * OCI distribution reference (lowercase path components, a tag of at most 128 characters). Without a host it names
 * Docker Hub, as {@code docker pull} does.
 *
 * @param repository {@code [host[:port]/]path}
 * @param tag        the tag, or null
 * @param digest     {@code sha256:<64 hex>}, or null
 */
public record ImageName(String repository, String tag, String digest) {
    private static final String COMPONENT = "[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*";
    private static final String HOST = "(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*(?::[0-9]{1,5})?/)";
    private static final Pattern REFERENCE = Pattern.compile("^(" + HOST + "?" + COMPONENT + "(?:/" + COMPONENT + ")*)"
            + "(?::([A-Za-z0-9_][A-Za-z0-9_.-]{0,127}))?(?:@(sha256:[0-9a-f]{64}))?$");
    public static final int MAX_LENGTH = 400;
    public static final String RULE = "must be an image reference such as registry.example.com:5000/team/app:1.2 "
            + "or …/app@sha256:<64 hex digits>";

    /** The reference, or empty when it is not one. */
    public static Optional<ImageName> parse(String reference) {
        if (reference == null || reference.length() > MAX_LENGTH) return Optional.empty();
        Matcher m = REFERENCE.matcher(reference);
        if (!m.matches()) return Optional.empty();
        String host = m.group(1).contains("/") ? m.group(1).substring(0, m.group(1).indexOf('/')) : "";
        // the first component names a host only when it looks like one, as the distribution reference reads it
        if (!host.isEmpty() && !host.contains(".") && !host.contains(":") && !host.equals("localhost")
                && !host.equals(host.toLowerCase(Locale.ROOT))) {
            return Optional.empty();
        }
        return Optional.of(new ImageName(m.group(1), m.group(2), m.group(3)));
    }

    /** The registry's host ({@code host[:port]}); Docker Hub's when the reference names none. */
    public String registry() {
        int slash = repository.indexOf('/');
        String first = slash < 0 ? "" : repository.substring(0, slash);
        return first.contains(".") || first.contains(":") || first.equals("localhost") ? first : "docker.io";
    }

    /** The same repository at {@code digest}: what a deployment runs, whatever the tag points to later. */
    public ImageName at(String newDigest) {
        return new ImageName(repository, null, newDigest);
    }

    public boolean pinned() {
        return digest != null;
    }

    @Override
    public String toString() {
        return repository + (tag == null ? "" : ":" + tag) + (digest == null ? "" : "@" + digest);
    }
}
