package io.rc10k.stubs.internal;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * What this build of the partner stubs calls itself, as {@code --version} prints it:
 * {@code rc10k-partner-stubs 0.1.0}.
 *
 * <p>The version comes from {@code version.properties} beside this class, which Maven filters as it builds
 * the classes (parent pom: {@code src/main/resources-filtered}). So it is there wherever the classes are: in
 * the shaded jar and in {@code target/classes} that tests and IDEs run. The jars' manifests carry the same
 * value as {@code Implementation-Version} for tools that look there. Without the file, or with it unfiltered (copied as it is), the version is {@code unknown}
 * rather than a guess.</p>
 */
public final class BuildVersion {
    public static final String NAME = "rc10k-partner-stubs";
    public static final String UNKNOWN = "unknown";
    private static final String VERSION = read();

    private BuildVersion() {
    }

    /** {@code 0.1.0-SNAPSHOT}, or {@code unknown}. */
    public static String version() {
        return VERSION;
    }

    /** {@code rc10k-partner-stubs 0.1.0-SNAPSHOT}: the line {@code --version} prints. */
    public static String nameAndVersion() {
        return NAME + " " + VERSION;
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
