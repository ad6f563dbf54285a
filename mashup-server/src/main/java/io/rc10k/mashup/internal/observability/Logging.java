package io.rc10k.mashup.internal.observability;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.core.joran.spi.JoranException;
import ch.qos.logback.core.status.Status;
import ch.qos.logback.core.status.StatusListener;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.ILoggerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * The standalone jar's logging: Logback, configured by the bundled {@code logback.xml} (or Logback's
 * own {@code -Dlogback.configurationFile}), or by the file of {@code --log-config} instead, then each
 * {@code --log-level}; java.util.logging is bridged to it.
 *
 * <pre>{@code
 * Logging.configure(command.logConfig(), command.logLevels()); // before the server starts
 * }</pre>
 *
 * <p>Only {@code Main.main} calls it, once, before the server exists: a WAR logs through its
 * container's binding and never loads this class (its Logback types are not in the WAR).</p>
 */
public final class Logging {
    private Logging() {
    }

    /**
     * @param file   a Logback configuration to replace the bundled one, or null
     * @param levels {@code LOGGER=LEVEL} (as {@code ServerArguments} checked them), applied in order
     * @throws IllegalArgumentException naming the file and what is wrong with it; logging is then
     *                                  left as it was, or half-configured by the bad file
     */
    public static void configure(Path file, List<String> levels) {
        ILoggerFactory factory = LoggerFactory.getILoggerFactory();
        if (!(factory instanceof LoggerContext context)) {
            // Another binding is first on the class path: its own settings rule, and ours cannot apply.
            if (file != null || !levels.isEmpty()) {
                throw new IllegalArgumentException("--log-config and --log-level need Logback, but SLF4J logs through "
                        + factory.getClass().getName());
            }
            return;
        }
        if (file != null) {
            load(context, file);
        }
        for (String setting : levels) {
            int eq = setting.indexOf('=');
            String name = setting.substring(0, eq);
            context.getLogger(name.equalsIgnoreCase("root") ? Logger.ROOT_LOGGER_NAME : name)
                    .setLevel(Level.toLevel(setting.substring(eq + 1), null));
        }
        if (!SLF4JBridgeHandler.isInstalled()) {
            SLF4JBridgeHandler.removeHandlersForRootLogger();
            SLF4JBridgeHandler.install();
        }
    }

    /**
     * Writes what the asynchronous appenders still hold (the bundled configuration queues every line,
     * {@link CountingAsyncAppender}; within a second) and stops logging: the last thing before the JVM
     * exits. Lines logged after it are lost.
     */
    public static void stop() {
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
            context.stop();
        }
    }

    private static void load(LoggerContext context, Path file) {
        String option = "--log-config " + file + ": ";
        if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
            throw new IllegalArgumentException(option + (Files.exists(file) ? "cannot be read" : "no such file")
                    + " (accepted: a readable Logback configuration file, XML)");
        }
        List<String> errors = new ArrayList<>();
        StatusListener collect = status -> {
            if (status.getLevel() >= Status.ERROR) {
                errors.add(status.getMessage() + (status.getThrowable() == null ? "" : " (" + status.getThrowable()
                        + ")"));
            }
        };
        context.reset();
        context.getStatusManager().add(collect);
        try {
            JoranConfigurator configurator = new JoranConfigurator();
            configurator.setContext(context);
            configurator.doConfigure(file.toFile());
        } catch (JoranException e) {
            // Its statuses say why; this is the summary.
            if (errors.isEmpty()) {
                errors.add(e.getMessage());
            }
        } finally {
            context.getStatusManager().remove(collect);
        }
        if (!errors.isEmpty()) {
            throw new IllegalArgumentException(option + "not a valid Logback configuration: "
                    + String.join("; ", errors.subList(0, Math.min(3, errors.size())))
                    + (errors.size() > 3 ? "; and " + (errors.size() - 3) + " more" : ""));
        }
    }
}
