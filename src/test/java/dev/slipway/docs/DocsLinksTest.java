package dev.slipway.docs;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README and the pages under {@code docs/} hold together: every relative link reaches a file of the repository,
 * every {@code #anchor} a heading or an {@code <a id>} of its page, every page is linked from the README, no page
 * names an issue of the project's tracker, and the README stays short.
 */
public class DocsLinksTest {
    static final Path ROOT = Path.of("").toAbsolutePath().normalize();
    static final Path README = ROOT.resolve("README.md");
    public static final Path DOCS = ROOT.resolve("docs");
    static final int README_MAX_LINES = 170;

    private static final Pattern FENCE = Pattern.compile("^\\s*(```|~~~)");
    private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s+(?:id|name)=\"([^\"]+)\"");
    private static final Pattern INLINE_CODE = Pattern.compile("`[^`\\n]*`");
    private static final Pattern LINK_TARGET = Pattern.compile("\\]\\(([^)\\s]*)(?:\\s+\"[^\"]*\")?\\)");
    private static final Pattern SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:");
    private static final List<Pattern> ISSUE = List.of(
            Pattern.compile("(?i)\\bissue\\s*#?\\d+"),
            Pattern.compile("(?m)(^|\\s)#\\d{2,}\\b"));

    @Test
    void everyLinkReachesAFileAndEveryAnchorAHeading() {
        List<String> problems = new ArrayList<>();
        for (Path page : pages()) {
            for (String target : linkTargets(read(page))) {
                String problem = check(page, target);
                if (problem != null) problems.add(ROOT.relativize(page) + ": " + target + ": " + problem);
            }
        }
        assertThat(problems).as("broken links").isEmpty();
    }

    @Test
    void everyDocsPageIsLinkedFromTheReadme() {
        Set<Path> linked = new TreeSet<>();
        for (String target : linkTargets(read(README))) {
            if (SCHEME.matcher(target).find() || target.startsWith("#")) continue;
            String file = target.contains("#") ? target.substring(0, target.indexOf('#')) : target;
            linked.add(ROOT.resolve(file).normalize());
        }
        List<String> missing = docsPages().stream().filter(p -> !linked.contains(p)).map(p -> ROOT.relativize(p).toString()).toList();
        assertThat(missing).as("docs pages the README does not link to").isEmpty();
    }

    @Test
    void noPageNamesAnIssueOfTheProject() {
        List<String> found = new ArrayList<>();
        for (Path page : pages()) {
            String text = read(page);
            for (Pattern p : ISSUE) {
                Matcher m = p.matcher(text);
                while (m.find()) found.add(ROOT.relativize(page) + ": \"" + m.group().strip() + "\"");
            }
        }
        assertThat(found).as("issue references (the docs speak of the product only)").isEmpty();
    }

    @Test
    void theReadmeIsShort() throws IOException {
        assertThat(Files.readAllLines(README, StandardCharsets.UTF_8)).as("README.md's lines: details go under docs/")
                .hasSizeLessThanOrEqualTo(README_MAX_LINES);
    }

    /** README.md and every page under docs/. */
    static List<Path> pages() {
        List<Path> pages = new ArrayList<>();
        pages.add(README);
        pages.addAll(docsPages());
        return pages;
    }

    public static List<Path> docsPages() {
        try (Stream<Path> files = Files.list(DOCS)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".md")).sorted().map(Path::normalize).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Why a link of {@code page} is broken, or null when it is not. */
    private static String check(Path page, String target) {
        if (target.isEmpty()) return "an empty link";
        if (target.startsWith("http://") || target.startsWith("https://") || target.startsWith("mailto:")) return null;
        if (SCHEME.matcher(target).find()) return "a link that is dead in a clone (" + target.substring(0, target.indexOf(':')) + ":)";
        String file = target.contains("#") ? target.substring(0, target.indexOf('#')) : target;
        String anchor = target.contains("#") ? target.substring(target.indexOf('#') + 1) : null;
        Path reached = page;
        if (!file.isEmpty()) {
            if (file.startsWith("/")) return "an absolute path, dead in a clone";
            reached = page.getParent().resolve(file).normalize();
            if (!reached.startsWith(ROOT)) return "points outside the repository";
            if (!Files.exists(reached)) return "no such file";
        }
        if (anchor == null) return null;
        if (Files.isDirectory(reached) || !reached.getFileName().toString().endsWith(".md")) return "an anchor into a file that is not markdown";
        if (!anchors(read(reached)).contains(anchor)) return "no heading or <a id> \"" + anchor + "\" in " + ROOT.relativize(reached);
        return null;
    }

    /** The targets of the page's inline links and images, outside code. */
    static List<String> linkTargets(String markdown) {
        List<String> targets = new ArrayList<>();
        Matcher m = LINK_TARGET.matcher(INLINE_CODE.matcher(withoutCodeBlocks(markdown)).replaceAll("``"));
        while (m.find()) targets.add(m.group(1));
        return targets;
    }

    /** The anchors a page offers: its headings' (GitHub's rule, duplicates numbered) and its {@code <a id>}s. */
    public static Set<String> anchors(String markdown) {
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        for (String line : withoutCodeBlocks(markdown).split("\n", -1)) {
            Matcher h = HEADING.matcher(line);
            if (h.matches()) {
                String slug = slug(h.group(2));
                int n = seen.merge(slug, 1, Integer::sum) - 1;
                anchors.add(n == 0 ? slug : slug + "-" + n);
            }
            Matcher a = HTML_ANCHOR.matcher(line);
            while (a.find()) anchors.add(a.group(1));
        }
        return anchors;
    }

    /** GitHub's anchor of a heading: lower case, punctuation but {@code -} and {@code _} dropped, spaces to {@code -}. */
    public static String slug(String heading) {
        String text = heading.strip().replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1");
        return text.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{M}\\p{Nd}_ -]", "").replace(' ', '-');
    }

    /** The page with its fenced code blocks blanked (lines kept, so that nothing in them reads as a heading or link). */
    private static String withoutCodeBlocks(String markdown) {
        StringBuilder out = new StringBuilder();
        boolean code = false;
        for (String line : markdown.split("\n", -1)) {
            if (FENCE.matcher(line).find()) {
                code = !code;
                out.append('\n');
                continue;
            }
            out.append(code ? "" : line).append('\n');
        }
        return out.toString();
    }

    static String read(Path page) {
        try {
            return Files.readString(page, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
