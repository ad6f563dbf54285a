package io.rc10k.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class BuildVersionTest {
    @Test
    void theVersionIsTheOneMavenFilteredIn() {
        // Run from target/classes, as here, the version is the project's, not "unknown".
        assertTrue(BuildVersion.version().matches("\\d+\\.\\d+\\.\\d+(-SNAPSHOT)?"), BuildVersion.version());
    }

    @Test
    void theVersionLineIsTheNameAndTheVersion() {
        assertEquals("rc10k-partner-stubs " + BuildVersion.version(), BuildVersion.line("rc10k-partner-stubs"));
    }
}
