package io.rc10k.benchmarks;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The module arrows of the architecture, read from the compiled main classes of every module on this
 * module's classpath (all of them but jmeter-plans, which checks itself the same way): no module uses
 * another's {@code internal} package, and the arrows point one way — {@code broker-client} knows no
 * servlet and no mashup, {@code partner-stubs} knows neither.
 */
class ModuleBoundariesTest {
    private static final List<String> MODULES = List.of("io.rc10k.broker", "io.rc10k.stubs", "io.rc10k.mashup",
            "io.rc10k.harness", "io.rc10k.benchmarks");
    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.rc10k");

    @Test
    void everyModuleIsRead() {
        for (String module : MODULES) {
            assertTrue(MAIN.stream().anyMatch(c -> c.getPackageName().startsWith(module)),
                    "no main class of " + module + " was found on the classpath");
        }
    }

    @Test
    void noModuleUsesAnotherModulesInternals() {
        for (String module : MODULES) {
            noClasses().that().resideOutsideOfPackage(module + "..")
                    .should().dependOnClassesThat().resideInAPackage(module + ".internal..")
                    .because("only " + module + " itself may use its internal package")
                    .check(MAIN);
        }
    }

    @Test
    void theBrokerKnowsNoServletAndNoMashup() {
        noClasses().that().resideInAPackage("io.rc10k.broker..")
                .should().dependOnClassesThat().resideInAnyPackage("io.rc10k.mashup..", "io.rc10k.stubs..",
                        "jakarta.servlet..")
                .check(MAIN);
    }

    @Test
    void theStubsKnowNeitherTheBrokerNorTheServer() {
        noClasses().that().resideInAPackage("io.rc10k.stubs..")
                .should().dependOnClassesThat().resideInAnyPackage("io.rc10k.broker..", "io.rc10k.mashup..")
                .check(MAIN);
    }

    @Test
    void onlyTheDemoUsesTheStubs() {
        noClasses().that().resideInAPackage("io.rc10k.mashup..")
                .and().resideOutsideOfPackage("io.rc10k.mashup.demo..")
                .should().dependOnClassesThat().resideInAPackage("io.rc10k.stubs..")
                .check(MAIN);
    }

    /**
     * A stock Jetty hides its server classes from web applications, so nothing the WAR's listener reaches
     * may use them (a Jetty handler in {@code Mode} once failed every deployment with NoClassDefFoundError).
     */
    @Test
    void nothingTheWarLoadsUsesJettysServerClasses() {
        noClasses().that().haveFullyQualifiedName("io.rc10k.mashup.MashupWebApp")
                .should().transitivelyDependOnClassesThat().resideInAnyPackage("org.eclipse.jetty.server..",
                        "org.eclipse.jetty.ee11..")
                .check(MAIN);
    }
}
