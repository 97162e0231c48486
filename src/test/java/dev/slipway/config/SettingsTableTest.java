package dev.slipway.config;

import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.slipway.build.BuildSettings;
import dev.slipway.core.Setting;
import dev.slipway.docs.DocsLinksTest;
import dev.slipway.operator.ServerCommand;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The configuration table of {@code docs/operations.md} is the one {@link SettingsTable} renders from the settings'
 * declarations, with each in-page link ({@code (#anchor)}) pointing at the docs page that holds that anchor. After
 * changing a setting, rewrite it with
 * {@code ./mvnw -q test-compile surefire:test -Dtest=SettingsTableTest -Dslipway.writeDocs=true} (the older
 * {@code -Dslipway.writeReadme=true} does the same).
 */
class SettingsTableTest {
    private static final Path PAGE = DocsLinksTest.DOCS.resolve("operations.md");
    private static final Pattern IN_PAGE_LINK = Pattern.compile("\\]\\(#([^)\\s]+)\\)");

    @Test
    void theDocsHoldTheGeneratedTable() throws IOException {
        String page = Files.readString(PAGE, StandardCharsets.UTF_8);
        int start = page.indexOf(SettingsTable.START);
        int end = page.indexOf(SettingsTable.END);
        assertThat(start).as("the table markers in " + PAGE).isNotNegative().isLessThan(end);
        String expected = linkedToTheirPages(SettingsTable.markdown(), page);
        String actual = page.substring(start + SettingsTable.START.length() + 1, end);
        if (actual.equals(expected)) return;
        if (Boolean.getBoolean("slipway.writeDocs") || Boolean.getBoolean("slipway.writeReadme")) {
            Files.writeString(PAGE, page.substring(0, start + SettingsTable.START.length() + 1) + expected + page.substring(end),
                    StandardCharsets.UTF_8);
            return;
        }
        fail("The settings table in docs/operations.md differs from the settings' declarations; rewrite it with "
                + "-Dslipway.writeDocs=true (see docs/architecture.md, Development). Expected:\n" + expected);
    }

    /**
     * The settings' meanings link to sections as {@code (#anchor)}; in the docs each such link names the page that
     * holds the anchor, unless it is the table's own page. An anchor no page or several pages hold is left as it is
     * (DocsLinksTest names it).
     */
    static String linkedToTheirPages(String table, String ownPage) {
        Set<String> own = DocsLinksTest.anchors(ownPage);
        Map<String, List<String>> pagesOf = new HashMap<>();
        for (Path p : DocsLinksTest.docsPages()) {
            if (p.equals(PAGE.normalize())) continue;
            try {
                for (String a : DocsLinksTest.anchors(Files.readString(p, StandardCharsets.UTF_8))) {
                    pagesOf.computeIfAbsent(a, k -> new ArrayList<>()).add(p.getFileName().toString());
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return IN_PAGE_LINK.matcher(table).replaceAll(m -> {
            String anchor = m.group(1);
            List<String> where = pagesOf.getOrDefault(anchor, List.of());
            if (own.contains(anchor) || where.size() != 1) return Matcher.quoteReplacement(m.group());
            return Matcher.quoteReplacement("](" + where.getFirst() + "#" + anchor + ")");
        });
    }

    @Test
    void everySettingOfTheProductIsInTheTableOnce() throws ReflectiveOperationException {
        List<Setting> listed = SettingsTable.settings();
        assertThat(listed).doesNotHaveDuplicates();
        assertThat(listed.stream().map(Setting::variable)).doesNotHaveDuplicates();
        List<Setting> declared = new ArrayList<>();
        for (JavaField f : new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.slipway").stream().flatMap(c -> c.getFields().stream()).toList()) {
            if (!f.getRawType().isEquivalentTo(Setting.class) || !f.getModifiers().contains(JavaModifier.STATIC)) continue;
            if (f.getOwner().getName().equals("dev.slipway.operator.Training")) continue; // the launcher's, not an operator's
            Field field = f.reflect();
            field.setAccessible(true);
            Setting s = (Setting) field.get(null);
            if (s != BuildSettings.NODE_EXTRA_CA_CERTS) declared.add(s); // the machine's, told of with the package managers
        }
        assertThat(listed).containsExactlyInAnyOrderElementsOf(declared);
    }

    @Test
    void everyFlagOfTheServerCommandIsASettingAndItsHelpNamesTheVariableAndDefault() {
        CommandLine server = new CommandLine(new ServerCommand());
        Set<String> flags = SettingsTable.settings().stream().filter(s -> s.flag() != null).map(Setting::flag)
                .collect(Collectors.toSet());
        Set<String> options = server.getCommandSpec().options().stream().map(OptionSpec::longestName)
                .filter(n -> !n.equals("--help") && !n.equals("--version")).collect(Collectors.toSet());
        assertThat(options).isEqualTo(flags);
        for (Setting s : SettingsTable.settings()) {
            if (s.flag() == null) continue;
            String help = String.join(" ", server.getCommandSpec().findOption(s.flag()).description());
            assertThat(help).as(s.flag()).contains("env " + s.variable());
            if (s.defaultShown().startsWith("`")) {
                String literal = s.defaultShown().substring(1, s.defaultShown().indexOf('`', 1));
                assertThat(help).as(s.flag()).contains("default: " + literal);
            }
        }
    }
}
