package io.rc10k.benchmarks;

import io.rc10k.benchmarks.launch.Launch;
import java.nio.file.Path;
import java.util.List;

/**
 * How the quick variants of the experiments launch their servers: the jars the build made (failsafe names them in
 * system properties; from this module's folder otherwise), this JVM's java, and a small heap, as a shared 2-core
 * machine affords.
 */
final class QuickLaunch {
    private QuickLaunch() {
    }

    static Launch get() {
        return new Launch(ProcessHandle.current().info().command().orElse("java"), List.of("-Xmx256m"),
                jar("rc10k.mashup.jar", "../mashup-server/target/mashup-server.jar"),
                jar("rc10k.stubs.jar", "../partner-stubs/target/partner-stubs.jar"),
                jar("rc10k.benchmarks.jar", "target/benchmarks.jar"));
    }

    private static Path jar(String property, String built) {
        return Path.of(System.getProperty(property, built));
    }
}
