package io.rc10k.experiments;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The experiments drive the servers from outside: through their public packages and the harness, never
 * through an {@code internal} package of another module (benchmarks' ModuleBoundariesTest checks the
 * other modules).
 */
class ModuleBoundariesTest {
    @Test
    void theExperimentsUseNoModulesInternals() {
        noClasses().that().resideInAPackage("io.rc10k.experiments..")
                .should().dependOnClassesThat().resideInAPackage("io.rc10k..internal..")
                .check(new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                        .importPackages("io.rc10k"));
    }
}
