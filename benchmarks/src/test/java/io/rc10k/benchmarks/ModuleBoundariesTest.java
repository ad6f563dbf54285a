package io.rc10k.benchmarks;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.domain.properties.HasModifiers;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.rc10k.broker.BrokerClient;
import io.rc10k.harness.ServerProcess;
import io.rc10k.mashup.MashupServer;
import io.rc10k.stubs.StubServer;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The module arrows of the architecture. The libraries are named modules ({@code io.rc10k.broker},
 * {@code io.rc10k.stubs}, {@code io.rc10k.mashup}, {@code io.rc10k.harness}): each {@code module-info} exports
 * its API package alone and requires only what its arrows allow, so the compiler keeps a module that requires
 * one out of its {@code internal} packages, and a module cannot name what it does not require. This test reads
 * those descriptors, so that a widened export or a new arrow fails here rather than passing unseen in a diff.
 * From the compiled main classes of every module on this module's classpath (all but jmeter-plans, which checks
 * itself the same way) it checks what the compiler does not: benchmarks and jmeter-plans use the libraries from
 * the class path, where no export holds; no API signature names an internal type; and the arrows between
 * mashup-server's own packages.
 */
class ModuleBoundariesTest {
    private static final List<String> MODULES = List.of("io.rc10k.broker", "io.rc10k.stubs", "io.rc10k.mashup",
            "io.rc10k.harness", "io.rc10k.benchmarks");
    /** The library modules, each named after its one exported package. */
    private static final Map<String, Class<?>> LIBRARIES = Map.of("io.rc10k.broker", BrokerClient.class,
            "io.rc10k.stubs", StubServer.class, "io.rc10k.mashup", MashupServer.class,
            "io.rc10k.harness", ServerProcess.class);
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
    void everyLibraryExportsItsApiPackageAlone() {
        for (Map.Entry<String, Class<?>> library : LIBRARIES.entrySet()) {
            ModuleDescriptor module = descriptor(library.getValue());
            assertEquals(library.getKey(), module.name());
            assertEquals(Set.of(library.getKey()), module.exports().stream().filter(e -> !e.isQualified())
                    .map(ModuleDescriptor.Exports::source).collect(Collectors.toSet()), module.name());
            // The one qualified export: Logback builds the appender its configuration names (mashup-server's
            // module-info says why).
            Map<String, Set<String>> qualified = module.exports().stream().filter(ModuleDescriptor.Exports::isQualified)
                    .collect(Collectors.toMap(ModuleDescriptor.Exports::source, e -> new TreeSet<>(e.targets())));
            assertEquals(module.name().equals("io.rc10k.mashup")
                    ? Map.of("io.rc10k.mashup.internal.observability", Set.of("ch.qos.logback.core")) : Map.of(),
                    qualified, module.name());
            assertTrue(module.opens().isEmpty() && !module.isOpen(), module.name() + " opens " + module.opens());
        }
    }

    /**
     * {@code mashup-server → broker-client}; nothing in {@code broker-client} knows servlets; {@code partner-stubs}
     * knows neither; the harness needs nothing beyond the JDK, so every module may use it. What a module does not
     * require, the compiler does not let it name.
     */
    @Test
    void theArrowsPointOneWay() {
        Set<String> mashup = requires(MashupServer.class);
        assertTrue(Set.of("io.rc10k.broker", "io.rc10k.stubs", "io.rc10k.harness").containsAll(mashup.stream()
                .filter(m -> m.startsWith("io.rc10k.")).toList()), "mashup-server: " + mashup);
        Set<String> broker = requires(BrokerClient.class);
        assertTrue(Stream.of("io.rc10k.mashup", "io.rc10k.stubs", "jakarta.servlet").noneMatch(broker::contains),
                "broker-client knows no servlet, no mashup and no stub: " + broker);
        Set<String> stubs = requires(StubServer.class);
        assertTrue(Stream.of("io.rc10k.broker", "io.rc10k.mashup").noneMatch(stubs::contains),
                "partner-stubs knows neither the broker nor the server: " + stubs);
        assertEquals(Set.of("java.base"), requires(ServerProcess.class), "the harness");
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

    /**
     * A public API type hides the machinery it runs on: no public or protected member, supertype or type argument
     * of an exported type names an {@code internal} one (javac's {@code -Xlint:exports} warns of the same).
     */
    @Test
    void noApiSignatureNamesAnInternalType() {
        List<String> leaks = new ArrayList<>();
        for (JavaClass type : MAIN) {
            if (!LIBRARIES.containsKey(type.getPackageName()) || !visible(type)) {
                continue;
            }
            List<JavaType> signature = new ArrayList<>(type.getInterfaces());
            type.getSuperclass().ifPresent(signature::add);
            for (JavaField field : type.getFields()) {
                if (visible(field)) {
                    signature.add(field.getType());
                }
            }
            for (JavaCodeUnit unit : type.getCodeUnits()) {
                if (visible(unit)) {
                    signature.add(unit.getReturnType());
                    signature.addAll(unit.getParameterTypes());
                    signature.addAll(unit.getThrowsClause().getTypes());
                }
            }
            signature.stream().flatMap(t -> t.getAllInvolvedRawTypes().stream()).map(JavaClass::getName)
                    .filter(name -> name.matches("io\\.rc10k\\.[a-z]+\\.internal\\..*")).distinct()
                    .forEach(name -> leaks.add(type.getName() + " -> " + name));
        }
        assertEquals(List.of(), leaks);
    }

    /**
     * The stages of mashup-server (admission, routing, modes; wiring that assembles them) and observability,
     * which is beside every stage and knows none, point one way: no two of them use each other.
     */
    @Test
    void theServersPackagesHaveNoCycle() {
        slices().matching("io.rc10k.mashup.internal.(*)..").should().beFreeOfCycles().check(MAIN);
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

    /** Public or protected, and so is every class it is nested in. */
    private static boolean visible(JavaClass type) {
        return visible((HasModifiers) type) && type.getEnclosingClass().map(ModuleBoundariesTest::visible).orElse(true);
    }

    private static boolean visible(HasModifiers member) {
        Set<JavaModifier> modifiers = member.getModifiers();
        return modifiers.contains(JavaModifier.PUBLIC) || modifiers.contains(JavaModifier.PROTECTED);
    }

    /** The modules a library requires, by name. */
    private static Set<String> requires(Class<?> library) {
        return descriptor(library).requires().stream().map(ModuleDescriptor.Requires::name)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /** The descriptor of the jar or classes directory {@code type} came from (this test runs on the class path). */
    private static ModuleDescriptor descriptor(Class<?> type) {
        Path location;
        try {
            location = Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        Set<ModuleReference> found = ModuleFinder.of(location).findAll();
        assertEquals(1, found.size(), location.toString());
        ModuleDescriptor module = found.iterator().next().descriptor();
        assertTrue(!module.isAutomatic(), location + " has no module-info.class: build it in this reactor (-am), "
                + "not from an older artifact in the local repository");
        return module;
    }
}
