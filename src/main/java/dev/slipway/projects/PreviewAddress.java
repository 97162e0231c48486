package dev.slipway.projects;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;

/**
 * The stable address of a branch's newest preview, {@code <project>-git-<branch>} under the apps domain. The branch
 * becomes lowercase letters, digits and '-'; when that changed anything (case, '/', other characters, Unicode) or
 * the label would pass DNS's 63 characters, 6 hex characters of the branch's SHA-256 end it, so two branches never
 * share an address and a branch name never reaches a host name unsanitised.
 */
public final class PreviewAddress {
    public static final String INFIX = "-git-";
    private static final int MAX_LABEL = 63;
    private static final int HASH = 6;

    private PreviewAddress() {}

    /** The label under the apps domain: {@code <project>-git-<slug>}. */
    public static String label(String projectName, String branch) {
        return projectName + INFIX + slug(projectName, branch);
    }

    /** The part after {@code -git-}, for a route table keyed by {@code <project>-<part>}. */
    public static String suffix(String projectName, String branch) {
        return "git-" + slug(projectName, branch);
    }

    static String slug(String projectName, String branch) {
        int room = MAX_LABEL - projectName.length() - INFIX.length();
        String plain = branch.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("^-+|-+$", "");
        if (plain.equals(branch) && !plain.isEmpty() && plain.length() <= room) return plain;
        String kept = plain.substring(0, Math.min(plain.length(), room - HASH - 1)).replaceAll("-+$", "");
        return (kept.isEmpty() ? "" : kept + "-") + hash(branch);
    }

    /** The project names a label could be the preview address of: what precedes each {@code -git-} in it. */
    public static List<String> projectsOf(String label) {
        List<String> out = new ArrayList<>();
        for (int i = label.indexOf(INFIX); i > 0; i = label.indexOf(INFIX, i + 1)) out.add(label.substring(0, i));
        return out;
    }

    private static String hash(String branch) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(branch.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest).substring(0, HASH);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available", e);
        }
    }
}
