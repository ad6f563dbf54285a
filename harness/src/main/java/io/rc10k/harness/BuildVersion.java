package io.rc10k.harness;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * What this build calls itself: the project's version, as every program's {@code --version} prints it and the
 * mashup server's {@code /health} shows it.
 *
 * <pre>{@code
 * System.out.println(BuildVersion.line("rc10k-mashup-server"));   // rc10k-mashup-server 0.1.0-SNAPSHOT
 * }</pre>
 *
 * <p>The version comes from {@code version.properties} beside this class, which Maven filters as it builds the
 * classes (parent pom: {@code src/main/resources-filtered}). So it is there wherever the classes are: in the
 * shaded jars, in the WAR (whose classes have no manifest of their own to ask), and in {@code target/classes}
 * that tests and IDEs run. The jars' manifests carry the same value as {@code Implementation-Version} for tools
 * that look there. Without the file, or with it unfiltered (copied as it is), the version is {@code unknown}
 * rather than a guess.</p>
 */
public final class BuildVersion {
    public static final String UNKNOWN = "unknown";
    private static final String VERSION = read();

    private BuildVersion() {
    }

    /** {@code 0.1.0-SNAPSHOT}, or {@code unknown}. */
    public static String version() {
        return VERSION;
    }

    /** {@code <name> 0.1.0-SNAPSHOT}: the line a program's {@code --version} prints. */
    public static String line(String name) {
        return name + " " + VERSION;
    }

    private static String read() {
        try (InputStream in = BuildVersion.class.getResourceAsStream("version.properties")) {
            if (in == null) {
                return UNKNOWN;
            }
            Properties properties = new Properties();
            properties.load(in);
            String version = properties.getProperty("version", "").strip();
            return version.isEmpty() || version.contains("${") ? UNKNOWN : version;
        } catch (IOException e) {
            return UNKNOWN;
        }
    }
}
