package dev.slipway.source;

import java.util.regex.Pattern;

/** Checks on repository and ref names, made before any git call (DESIGN §3). */
public final class GitNames {
    public static final Pattern REPO = Pattern.compile("^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$");
    public static final Pattern SHA = Pattern.compile("^[0-9a-f]{7,40}$");

    private GitNames() {}

    public static boolean validRepo(String repo) {
        if (repo == null || repo.length() > 200 || !REPO.matcher(repo).matches()) return false;
        for (String part : repo.split("/")) {
            if (part.equals(".") || part.equals("..")) return false;
        }
        return true;
    }

    /** git check-ref-format's rules for a branch name. */
    public static boolean validBranch(String name) {
        if (name == null || name.isEmpty() || name.length() > 255) return false;
        if (name.equals("@") || name.startsWith("-") || name.startsWith("/") || name.endsWith("/")
                || name.endsWith(".") || name.endsWith(".lock") || name.contains("..") || name.contains("//")
                || name.contains("@{")) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c < 0x21 || c == 0x7f || c == '~' || c == '^' || c == ':' || c == '?' || c == '*' || c == '['
                    || c == '\\') {
                return false;
            }
        }
        for (String component : name.split("/")) {
            if (component.startsWith(".") || component.endsWith(".lock")) return false;
        }
        return true;
    }
}
