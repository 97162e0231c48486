package dev.slipway.config;

import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.slipway.build.BuildSettings;
import dev.slipway.core.Setting;
import dev.slipway.operator.ServerCommand;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The README's configuration table is the one {@link SettingsTable} renders from the settings' declarations. After
 * changing a setting, rewrite it with {@code ./mvnw -q surefire:test -Dtest=SettingsTableTest -Dslipway.writeReadme=true}.
 */
class SettingsTableTest {
    private static final Path README = Path.of("README.md");

    @Test
    void theReadmeHoldsTheGeneratedTable() throws IOException {
        String readme = Files.readString(README, StandardCharsets.UTF_8);
        int start = readme.indexOf(SettingsTable.START);
        int end = readme.indexOf(SettingsTable.END);
        assertThat(start).as("the README's table markers").isNotNegative().isLessThan(end);
        String expected = SettingsTable.markdown();
        String actual = readme.substring(start + SettingsTable.START.length() + 1, end);
        if (actual.equals(expected)) return;
        if (Boolean.getBoolean("slipway.writeReadme")) {
            Files.writeString(README, readme.substring(0, start + SettingsTable.START.length() + 1) + expected + readme.substring(end),
                    StandardCharsets.UTF_8);
            return;
        }
        fail("The README's settings table differs from the settings' declarations; rewrite it with -Dslipway.writeReadme=true "
                + "(see the README's Development section). Expected:\n" + expected);
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
