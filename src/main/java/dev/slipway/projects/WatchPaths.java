package dev.slipway.projects;

import java.nio.file.FileSystems;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Which pushes deploy: a push deploys when it changes a path that one of the project's watch paths matches. A
 * watch path is a glob relative to the repository's top ({@code apps/web/**}, {@code *.go}); one without glob
 * characters names a file or a folder and everything under it. With no watch paths, a project with a root
 * directory watches that folder, and any other project watches everything.
 */
public final class WatchPaths {
    public static final int MAX = 50;
    private static final Pattern ALLOWED = Pattern.compile("[A-Za-z0-9._\\-/*?{},\\[\\]!]{1,255}");
    private static final Pattern GLOB = Pattern.compile("[*?{\\[]");

    private WatchPaths() {}

    /** Why {@code glob} is not a watch path, or empty when it is one. */
    public static Optional<String> problem(String glob) {
        if (!ALLOWED.matcher(glob).matches()) {
            return Optional.of("must be 1 to 255 characters of letters, digits, '.', '_', '-', '/' and the glob characters * ? { } [ ] , !");
        }
        if (glob.startsWith("/") || List.of(glob.split("/")).contains("..")) {
            return Optional.of("must be relative to the repository's top, without '..'");
        }
        try {
            FileSystems.getDefault().getPathMatcher("glob:" + glob);
        } catch (IllegalArgumentException e) {
            return Optional.of("is not a valid glob: " + e.getMessage().lines().findFirst().orElse(""));
        }
        return Optional.empty();
    }

    /** The globs a project watches: its watch paths, else its root directory, else none (everything deploys). */
    public static List<String> effective(List<String> watchPaths, String rootDirectory) {
        if (!watchPaths.isEmpty()) return watchPaths;
        return rootDirectory == null ? List.of() : List.of(rootDirectory);
    }

    /** True when one of {@code changed} (paths from the repository's top) is matched by one of {@code globs}. */
    public static boolean matchesAny(List<String> globs, Collection<String> changed) {
        for (String glob : globs) {
            boolean pattern = GLOB.matcher(glob).find();
            String plain = glob.endsWith("/") ? glob.substring(0, glob.length() - 1) : glob;
            PathMatcher matcher = pattern ? FileSystems.getDefault().getPathMatcher("glob:" + glob) : null;
            for (String path : changed) {
                if (pattern ? globMatches(matcher, path) : path.equals(plain) || path.startsWith(plain + "/")) return true;
            }
        }
        return false;
    }

    private static boolean globMatches(PathMatcher matcher, String path) {
        try {
            return matcher.matches(Path.of(path));
        } catch (InvalidPathException e) {
            return false;
        }
    }
}
