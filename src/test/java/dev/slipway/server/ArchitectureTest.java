package dev.slipway.server;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.slipway.Main;
import dev.slipway.build.Builder;
import dev.slipway.client.Client;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.equivalentTo;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The package graph of the product's code: no cycles, the HTTP toolkit below every feature, the client
 * apart from the server (it talks to it over the HTTP API only), and the build engine's parts in one direction.
 */
class ArchitectureTest {
    private static JavaClasses product;

    @BeforeAll
    static void read() {
        product = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.slipway");
    }

    @Test
    void noPackageDependsOnItselfThroughOthers() {
        slices().matching("dev.slipway.(*)..").should().beFreeOfCycles().check(product);
    }

    @Test
    void theHttpToolkitAndTheStoreKnowNoFeature() {
        noClasses().that().resideInAnyPackage("dev.slipway.api..", "dev.slipway.store..", "dev.slipway.core..",
                        "dev.slipway.net..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.slipway.deployments..", "dev.slipway.migrations..",
                        "dev.slipway.projects..", "dev.slipway.webhooks..", "dev.slipway.databases..", "dev.slipway.build..",
                        "dev.slipway.runtime..", "dev.slipway.router..", "dev.slipway.source..", "dev.slipway.dashboard..",
                        "dev.slipway.server..", "dev.slipway.config..")
                .check(product);
    }

    @Test
    void theClientsPackagesDependOnEachOtherOneWay() {
        slices().matching("dev.slipway.client.(*)..").should().beFreeOfCycles().check(product);
        noClasses().that().resideInAPackage("dev.slipway.client..").and().resideOutsideOfPackage("dev.slipway.client")
                .should().dependOnClassesThat().resideInAPackage("dev.slipway.client")
                .because("the client's root holds only its entry point, which registers every command")
                .check(product);
    }

    @Test
    void theBuildEnginesPartsDependOnEachOtherOneWay() {
        slices().matching("dev.slipway.build.(*)..").should().beFreeOfCycles().check(product);
        noClasses().that().resideInAPackage("dev.slipway.build").and().doNotBelongToAnyOf(Builder.class)
                .should().dependOnClassesThat(resideInAPackage("dev.slipway.build..").and(not(resideInAPackage("dev.slipway.build"))))
                .because("the engine's root holds its entry point, which runs every part, and what the parts share")
                .check(product);
        List<String> kinds = List.of("node", "python", "statics", "docker");
        for (String kind : kinds) {
            noClasses().that().resideInAPackage("dev.slipway.build." + kind + "..")
                    .should().dependOnClassesThat().resideInAnyPackage(kinds.stream().filter(k -> !k.equals(kind))
                            .map(k -> "dev.slipway.build." + k + "..").toArray(String[]::new))
                    .because("each kind of build stands alone, so another kind is one more package")
                    .check(product);
        }
    }

    @Test
    void theClientUsesNothingOfTheServer() {
        noClasses().that().resideInAPackage("dev.slipway.client..")
                .should().dependOnClassesThat(resideInAPackage("dev.slipway..")
                        .and(not(resideInAnyPackage("dev.slipway.client..", "dev.slipway.core.."))))
                .because("the client talks to the server over the HTTP API only; the shared kernel (core) is all they share")
                .check(product);
    }

    @Test
    void onlyTheServerKnowsTheLocalRuntime() {
        noClasses().that().resideOutsideOfPackages("dev.slipway.runtime.local..", "dev.slipway.server..")
                .should().dependOnClassesThat().resideInAPackage("dev.slipway.runtime.local..")
                .because("callers reach a runtime through AppRuntime and its capabilities; the server picks which runs")
                .check(product);
    }

    @Test
    void onlyTheLauncherKnowsTheClientAndOnlyItsEntryPoint() {
        noClasses().that().resideOutsideOfPackage("dev.slipway.client..").and().doNotBelongToAnyOf(Main.class)
                .should().dependOnClassesThat().resideInAPackage("dev.slipway.client..")
                .check(product);
        noClasses().that().belongToAnyOf(Main.class)
                .should().dependOnClassesThat(resideInAPackage("dev.slipway.client..").and(not(equivalentTo(Client.class))))
                .check(product);
    }
}
