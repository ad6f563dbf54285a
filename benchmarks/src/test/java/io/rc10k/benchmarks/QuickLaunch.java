package io.rc10k.benchmarks;

import io.rc10k.benchmarks.launch.Launch;
import java.util.List;

/**
 * How the quick variants of the experiments launch their servers: the jars the build made (failsafe names them in
 * the system properties {@link Launch#defaults()} reads), this JVM's java, and a small heap, as a shared 2-core
 * machine affords.
 */
final class QuickLaunch {
    private QuickLaunch() {
    }

    static Launch get() {
        return Launch.defaults().withJvmArgs(List.of("-Xmx256m"));
    }
}
