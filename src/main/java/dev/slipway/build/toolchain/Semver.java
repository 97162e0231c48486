package dev.slipway.build.toolchain;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * npm's semver ranges, as far as Node versions and package managers need them: {@code ||}, hyphen ranges,
 * comparators ({@code >= > <= < =}), caret, tilde and x-ranges ({@code 22}, {@code 22.x}, {@code *}).
 * Prereleases never match: the build picks released versions only.
 */
final class Semver {
    record Version(int major, int minor, int patch) implements Comparable<Version> {
        private static final Pattern EXACT = Pattern.compile("v?(\\d+)\\.(\\d+)\\.(\\d+)");
        static final Comparator<Version> ORDER = Comparator.comparingInt(Version::major).thenComparingInt(Version::minor)
                .thenComparingInt(Version::patch);

        /** A released version ({@code 22.1.0}); empty for a prerelease, build metadata or anything else. */
        static Optional<Version> parse(String s) {
            Matcher m = EXACT.matcher(s.strip());
            if (!m.matches()) return Optional.empty();
            try {
                return Optional.of(new Version(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3))));
            } catch (NumberFormatException tooBig) {
                return Optional.empty();
            }
        }

        @Override
        public int compareTo(Version o) {
            return ORDER.compare(this, o);
        }

        @Override
        public String toString() {
            return major + "." + minor + "." + patch;
        }
    }

    /** One comparator set: every bound must hold. */
    private record Bounds(List<Bound> all) {
        boolean test(Version v) {
            return all.stream().allMatch(b -> b.test(v));
        }
    }

    private record Bound(String op, Version v) {
        boolean test(Version x) {
            int c = x.compareTo(v);
            return switch (op) {
                case ">=" -> c >= 0;
                case ">" -> c > 0;
                case "<=" -> c <= 0;
                case "<" -> c < 0;
                default -> c == 0;
            };
        }
    }

    private static final Pattern PART = Pattern.compile(
            "(<=|>=|<|>|=|\\^|~>?|)v?(x|X|\\*|\\d+)(?:\\.(x|X|\\*|\\d+))?(?:\\.(x|X|\\*|\\d+))?(?:-[0-9A-Za-z.-]+)?(?:\\+[0-9A-Za-z.-]+)?");

    private final List<Bounds> anyOf;

    private Semver(List<Bounds> anyOf) {
        this.anyOf = anyOf;
    }

    /** @throws IllegalArgumentException naming the part that is not a range */
    static Semver range(String text) {
        List<Bounds> sets = new ArrayList<>();
        for (String alt : text.split("\\|\\|", -1)) {
            String s = alt.strip().replaceAll("(<=|>=|<|>|=|\\^|~>?)\\s+", "$1");
            List<Bound> bounds = new ArrayList<>();
            String[] hyphen = s.split("\\s+-\\s+");
            if (hyphen.length == 2) {
                bounds.addAll(part(">=", hyphen[0]));
                bounds.addAll(part("<=", hyphen[1]));
            } else if (!s.isEmpty()) {
                for (String token : s.split("\\s+")) bounds.addAll(part(null, token));
            }
            sets.add(new Bounds(bounds));
        }
        return new Semver(sets);
    }

    boolean test(Version v) {
        return anyOf.stream().anyMatch(b -> b.test(v));
    }

    /** The newest of the versions in the range. */
    Optional<Version> newest(Collection<Version> versions) {
        return versions.stream().filter(this::test).max(Version.ORDER);
    }

    private static List<Bound> part(String forcedOp, String token) {
        Matcher m = PART.matcher(token);
        if (!m.matches()) throw new IllegalArgumentException("\"" + token + "\" is not a version range");
        String op = forcedOp != null ? forcedOp : m.group(1);
        int[] n = new int[3];
        int given = 0;
        for (int i = 0; i < 3; i++) {
            String g = m.group(i + 2);
            if (g == null || g.equalsIgnoreCase("x") || g.equals("*")) break;
            try {
                n[i] = Integer.parseInt(g);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("\"" + token + "\" has a number too large");
            }
            given++;
        }
        int major = n[0], minor = n[1], patch = n[2];
        Version base = new Version(major, minor, patch);
        Version nextMajor = new Version(major + 1, 0, 0);
        Version nextMinor = new Version(major, minor + 1, 0);
        Version nextPatch = new Version(major, minor, patch + 1);
        return switch (op) {
            case "^" -> given == 0 ? List.of()
                    : List.of(new Bound(">=", base), new Bound("<", major > 0 || given == 1 ? nextMajor
                            : minor > 0 || given == 2 ? nextMinor : nextPatch));
            case "~", "~>" -> given == 0 ? List.of()
                    : List.of(new Bound(">=", base), new Bound("<", given == 1 ? nextMajor : nextMinor));
            case ">" -> switch (given) {
                case 0 -> List.of(new Bound("<", new Version(0, 0, 0)));
                case 1 -> List.of(new Bound(">=", nextMajor));
                case 2 -> List.of(new Bound(">=", nextMinor));
                default -> List.of(new Bound(">", base));
            };
            case ">=" -> given == 0 ? List.of() : List.of(new Bound(">=", base));
            case "<" -> List.of(new Bound("<", base));
            case "<=" -> switch (given) {
                case 0 -> List.of();
                case 1 -> List.of(new Bound("<", nextMajor));
                case 2 -> List.of(new Bound("<", nextMinor));
                default -> List.of(new Bound("<=", base));
            };
            default -> switch (given) { // "" and "="
                case 0 -> List.of();
                case 1 -> List.of(new Bound(">=", base), new Bound("<", nextMajor));
                case 2 -> List.of(new Bound(">=", base), new Bound("<", nextMinor));
                default -> List.of(new Bound("=", base));
            };
        };
    }
}
