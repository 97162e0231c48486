package dev.slipway.server;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/** The package graph of the product's code: no cycles, and the HTTP toolkit below every feature. */
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
}
