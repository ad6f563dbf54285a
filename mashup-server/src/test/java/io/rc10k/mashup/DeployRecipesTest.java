package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.broker.Partner;
import io.rc10k.mashup.internal.wiring.Probe;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.server.Server;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The deployment recipes in {@code deploy/}: docs/operations.md shows them verbatim, and what can be
 * checked without a container runtime or systemd is checked here — the Dockerfile's stages, its
 * non-root user, the jar it copies, its ports; the unit's exit status, command and stop timeout.
 */
class DeployRecipesTest {
    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    private static final Path DOCKERFILE = ROOT.resolve("deploy/Dockerfile");
    private static final Path UNIT = ROOT.resolve("deploy/rc10k-mashup.service");
    private static final Path OPERATIONS = ROOT.resolve("docs/operations.md");

    private static String read(Path file) throws IOException {
        return Files.readString(file, StandardCharsets.UTF_8);
    }

    /** The one fenced block of operations.md that opens with {@code ```info}. */
    private static String embedded(String info) throws IOException {
        Matcher m = Pattern.compile("(?ms)^```" + info + "\\n(.*?)^```$").matcher(read(OPERATIONS));
        assertTrue(m.find(), "operations.md has no ```" + info + " block");
        String block = m.group(1);
        assertFalse(m.find(), "operations.md has more than one ```" + info + " block");
        return block;
    }

    /** The comment lines right above the first line that starts with {@code start}, joined; fails when there is none. */
    static String commentAbove(String text, String start) {
        List<String> lines = List.of(text.split("\n"));
        int at = 0;
        while (at < lines.size() && !lines.get(at).startsWith(start)) {
            at++;
        }
        assertTrue(at < lines.size(), "no line starts with " + start);
        StringBuilder comment = new StringBuilder();
        for (int i = at - 1; i >= 0 && lines.get(i).startsWith("#"); i--) {
            comment.insert(0, lines.get(i).substring(1).strip() + " ");
        }
        assertFalse(comment.isEmpty(), "no comment above " + start);
        return comment.toString();
    }

    @Test
    void operationsShowsBothRecipesVerbatim() throws IOException {
        assertEquals(read(DOCKERFILE), embedded("dockerfile"), "docs/operations.md's copy of deploy/Dockerfile");
        assertEquals(read(UNIT), embedded("ini"), "docs/operations.md's copy of deploy/rc10k-mashup.service");
    }

    /** One Dockerfile instruction: the keyword and its arguments, continuation lines joined. */
    record Instruction(String keyword, String arguments) {
    }

    static List<Instruction> instructions(String dockerfile) {
        List<Instruction> all = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : dockerfile.split("\n")) {
            String trimmed = line.strip();
            if (trimmed.startsWith("#") || (trimmed.isEmpty() && current.length() == 0)) {
                continue;
            }
            if (trimmed.endsWith("\\")) {
                current.append(trimmed, 0, trimmed.length() - 1).append(' ');
                continue;
            }
            current.append(trimmed);
            String text = current.toString().strip();
            current.setLength(0);
            int space = text.indexOf(' ');
            all.add(new Instruction(text.substring(0, space).toUpperCase(Locale.ROOT),
                    text.substring(space + 1).strip()));
        }
        return all;
    }

    @Test
    void dockerfileBuildsOnAJdkAndRunsTheBuiltJarOnAJreAsANonRootUser() throws IOException {
        String text = read(DOCKERFILE);
        List<Instruction> all = instructions(text);
        List<Integer> stages = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            if (all.get(i).keyword().equals("FROM")) {
                stages.add(i);
            }
        }
        assertEquals(2, stages.size(), "a build stage and a runtime stage");
        assertEquals("eclipse-temurin:17-jdk AS build", all.get(stages.get(0)).arguments());
        assertEquals("eclipse-temurin:17-jre", all.get(stages.get(1)).arguments());
        List<Instruction> build = all.subList(stages.get(0), stages.get(1));
        List<Instruction> runtime = all.subList(stages.get(1), all.size());

        String workdir = build.stream().filter(i -> i.keyword().equals("WORKDIR")).map(Instruction::arguments)
                .reduce((a, b) -> b).orElseThrow();
        assertTrue(build.stream().anyMatch(i -> i.keyword().equals("RUN") && i.arguments().contains("./mvnw ")
                && i.arguments().contains(" package ") && i.arguments().contains("-pl mashup-server -am")),
                "the build stage builds the server and its modules with the Maven Wrapper");

        // The jar copied is the one the build writes (mashup-server/pom.xml: shade.outputFile).
        Matcher output = Pattern.compile("<shade.outputFile>\\$\\{project.build.directory}/([^<]+)</shade.outputFile>")
                .matcher(read(ROOT.resolve("mashup-server/pom.xml")));
        assertTrue(output.find(), "mashup-server/pom.xml names the shaded jar");
        String built = workdir + "/mashup-server/target/" + output.group(1);
        Instruction copy = runtime.stream().filter(i -> i.keyword().equals("COPY")).findFirst().orElseThrow();
        String[] copied = copy.arguments().split("\\s+");
        assertEquals("--from=build", copied[0]);
        assertEquals(built, copied[1], "the runtime stage copies the jar the build stage produced");
        String jar = copied[2];

        List<Instruction> users = runtime.stream().filter(i -> i.keyword().equals("USER")).toList();
        assertEquals(1, users.size(), "one USER in the runtime stage");
        String user = users.get(0).arguments().split(":")[0];
        assertFalse(user.equals("root") || user.equals("0"), "the server runs as root: " + user);
        assertTrue(runtime.stream().anyMatch(i -> i.keyword().equals("RUN") && i.arguments().contains("useradd")
                && i.arguments().contains("--uid " + user)), "USER " + user + " is created in the runtime stage");
        assertTrue(runtime.indexOf(users.get(0)) > runtime.indexOf(copy), "the jar is copied before dropping root");

        Instruction expose = runtime.stream().filter(i -> i.keyword().equals("EXPOSE")).findFirst().orElseThrow();
        assertEquals(List.of(String.valueOf(MashupOptions.DEFAULT_PORT),
                String.valueOf(MashupOptions.defaults().adminPort())), List.of(expose.arguments().split("\\s+")),
                "the default port and admin port");

        Instruction entrypoint = runtime.stream().filter(i -> i.keyword().equals("ENTRYPOINT")).findFirst()
                .orElseThrow();
        assertTrue(entrypoint.arguments().startsWith("["), "exec form, so that java gets the SIGTERM as PID 1");
        String command = entrypoint.arguments();
        assertTrue(command.contains("\"java\", \"-jar\", \"" + jar + "\""), command);
        assertTrue(command.contains("\"--host\", \"0.0.0.0\""), "reachable from outside the container: " + command);
        assertFalse(command.contains("--port"), "the ports are the defaults EXPOSE names");
        // The admin port is on loopback by default, and a container's loopback is out of reach of its probes.
        assertTrue(command.contains("\"--admin-host\", \"0.0.0.0\""), "the admin port reachable from outside: "
                + command);
        String why = commentAbove(text, "ENTRYPOINT");
        assertTrue(why.contains("--admin-host 0.0.0.0") && why.contains("Kubernetes") && why.contains("Prometheus"),
                "the comment above ENTRYPOINT says why the admin port leaves loopback: " + why);

        // The health check: the jar probes its own readiness on the admin port; the image has no curl.
        List<Instruction> checks = runtime.stream().filter(i -> i.keyword().equals("HEALTHCHECK")).toList();
        assertEquals(1, checks.size(), "one HEALTHCHECK in the runtime stage");
        List<String> probe = healthCheckCommand(checks.get(0));
        assertEquals("java", probe.get(0));
        assertEquals(List.of("-jar", jar, "--probe", "http://127.0.0.1:" + MashupOptions.defaults().adminPort()
                + "/health/ready"), probe.subList(probe.indexOf("-jar"), probe.size()), "the readiness view: " + probe);
        Matcher timeout = Pattern.compile("--timeout=(\\d+)s").matcher(checks.get(0).arguments());
        assertTrue(timeout.find(), "the check's timeout is set: " + checks.get(0));
        assertTrue(TimeUnit.SECONDS.toMillis(Long.parseLong(timeout.group(1))) > 2L * Probe.TIMEOUT_MILLIS,
                "Docker waits longer than the probe's own bounds (connect, then answer), so the probe says why");
        assertFalse(runtime.stream().anyMatch(i -> i.arguments().contains("curl")), "the runtime stage has no curl");
        String checkWhy = commentAbove(text, "HEALTHCHECK");
        assertTrue(checkWhy.contains("curl") && checkWhy.contains("starting no server"), "the comment says why: "
                + checkWhy);

        for (String note : List.of("--ulimit nofile=", "/health/ready", "/health/live", "--stop-timeout")) {
            assertTrue(text.contains(note), "the Dockerfile's notes mention " + note);
        }
    }

    /** The exec form of a {@code HEALTHCHECK ... CMD [...]}: the command's words. */
    static List<String> healthCheckCommand(Instruction check) {
        String arguments = check.arguments();
        int cmd = arguments.indexOf("CMD [");
        assertTrue(cmd >= 0, "HEALTHCHECK in exec form (CMD [...]), so that no shell is needed: " + arguments);
        String array = arguments.substring(cmd + 4).strip();
        assertTrue(array.endsWith("]"), arguments);
        List<String> words = new ArrayList<>();
        Matcher word = Pattern.compile("\"([^\"]*)\"").matcher(array);
        while (word.find()) {
            words.add(word.group(1));
        }
        return words;
    }

    /** The unit's sections, each key's values in order, continuation lines joined. */
    private static Map<String, Map<String, List<String>>> unit(String text) {
        Map<String, Map<String, List<String>>> sections = new LinkedHashMap<>();
        Map<String, List<String>> section = null;
        StringBuilder current = new StringBuilder();
        for (String line : text.split("\n")) {
            String trimmed = line.strip();
            if (current.length() == 0 && (trimmed.isEmpty() || trimmed.startsWith("#") || trimmed.startsWith(";"))) {
                continue;
            }
            if (trimmed.endsWith("\\")) {
                current.append(trimmed, 0, trimmed.length() - 1).append(' ');
                continue;
            }
            current.append(trimmed);
            String entry = current.toString().strip();
            current.setLength(0);
            if (entry.startsWith("[")) {
                section = new LinkedHashMap<>();
                sections.put(entry.substring(1, entry.length() - 1), section);
                continue;
            }
            assertNotNull(section, "a key before any section: " + entry);
            int eq = entry.indexOf('=');
            assertTrue(eq > 0, "not key=value: " + entry);
            section.computeIfAbsent(entry.substring(0, eq), k -> new ArrayList<>()).add(entry.substring(eq + 1));
        }
        return sections;
    }

    private static String one(Map<String, List<String>> section, String key) {
        List<String> values = section.get(key);
        assertNotNull(values, key + " is missing");
        assertEquals(1, values.size(), key + " is set more than once");
        return values.get(0);
    }

    @Test
    void systemdUnitRunsTheJarAsItsOwnUserAndOutlastsTheGracefulStop() throws Exception {
        Map<String, Map<String, List<String>>> unit = unit(read(UNIT));
        assertEquals(List.of("Unit", "Service", "Install"), List.copyOf(unit.keySet()));
        Map<String, List<String>> service = unit.get("Service");

        assertTrue(List.of(one(service, "SuccessExitStatus").split("\\s+")).contains("143"),
                "a JVM stopped by SIGTERM exits 143");
        String[] exec = one(service, "ExecStart").split("\\s+");
        assertTrue(exec[0].startsWith("/") && exec[0].endsWith("/java"), "an absolute java: " + exec[0]);
        List<String> args = List.of(exec);
        int jar = args.indexOf("-jar") + 1;
        assertTrue(jar > 0 && args.get(jar).endsWith("/mashup-server.jar"), "java -jar …/mashup-server.jar: " + args);
        assertEquals(String.valueOf(MashupOptions.DEFAULT_PORT), args.get(args.indexOf("--port") + 1));
        assertEquals(String.valueOf(MashupOptions.defaults().adminPort()), args.get(args.indexOf("--admin-port") + 1));
        assertEquals("0.0.0.0", args.get(args.indexOf("--admin-host") + 1), "probes from other hosts: " + args);
        String why = commentAbove(read(UNIT), "ExecStart=");
        assertTrue(why.contains("--admin-host 0.0.0.0") && why.contains("Prometheus"),
                "the comment above ExecStart says why the admin port leaves loopback: " + why);

        String user = one(service, "User");
        assertFalse(user.equals("root") || user.equals("0"), "a dedicated user, not root");
        assertTrue(Integer.parseInt(one(service, "LimitNOFILE")) >= 65_536, "room for tens of thousands of sockets");
        assertEquals("on-failure", one(service, "Restart"));
        assertTrue(List.of(one(service, "RestartPreventExitStatus").split("\\s+")).contains("2"),
                "bad definitions (exit 2) are not restarted");
        assertEquals("multi-user.target", one(unit.get("Install"), "WantedBy"));

        // TimeoutStopSec must outlast the server's own stop timeout for the deadlines the unit claims to cover.
        long timeoutStopMillis = TimeUnit.SECONDS.toMillis(Long.parseLong(one(service, "TimeoutStopSec")));
        Matcher covers = Pattern.compile("covers mashup deadlines up to (\\d+) s in every mode").matcher(read(UNIT));
        assertTrue(covers.find(), "the unit says which deadlines its TimeoutStopSec covers");
        Duration deadline = Duration.ofSeconds(Long.parseLong(covers.group(1)));
        assertTrue(deadline.compareTo(MashupDefinition.DEFAULT_DEADLINE) >= 0, "at least the default deadline");
        Definitions definitions = Definitions.builder()
                .partner(Partner.builder("p", "http://127.0.0.1:9").build())
                .mashup(MashupDefinition.builder("m").deadline(deadline).call("c", "p", "/").build())
                .build();
        for (Mode mode : List.of(Mode.ASYNC, Mode.SYNC)) {
            Server server = MashupServer.createServer(MashupOptions.builder().mode(mode).port(0).build(), definitions);
            assertTrue(timeoutStopMillis > server.getStopTimeout(), mode + ": TimeoutStopSec " + timeoutStopMillis
                    + " ms must exceed the graceful stop of " + server.getStopTimeout() + " ms");
        }
    }

    @Test
    void systemdUnitSizesTheHeapToItsMemoryLimit() throws Exception {
        Map<String, List<String>> service = unit(read(UNIT)).get("Service");
        Matcher max = Pattern.compile("(\\d+)G").matcher(one(service, "MemoryMax"));
        assertTrue(max.matches(), "MemoryMax= in GiB: " + one(service, "MemoryMax"));
        Matcher percent = Pattern.compile("-XX:MaxRAMPercentage=(\\d+) ").matcher(one(service, "ExecStart"));
        assertTrue(percent.find(), "the heap is a share of the unit's memory limit: " + one(service, "ExecStart"));
        int share = Integer.parseInt(percent.group(1));
        assertTrue(share >= 50 && share <= 75, "room beside the heap for stacks, buffers, code: " + share + " %");
        assertFalse(one(service, "ExecStart").contains("-Xmx"), "-Xmx would override the share");
        String why = commentAbove(read(UNIT), "MemoryMax=");
        assertTrue(why.contains("-XX:MaxRAMPercentage") && why.contains(share + " %"), "the comment says how: " + why);
    }

    /** The directives of `systemd-analyze security`, set so that they hold even where it cannot run. */
    @Test
    void systemdUnitIsSandboxedAsFarAsAJvmAllows() throws Exception {
        String text = read(UNIT);
        Map<String, List<String>> service = unit(text).get("Service");
        Map<String, String> expected = new LinkedHashMap<>();
        for (String key : List.of("NoNewPrivileges", "ProtectHome", "PrivateTmp", "PrivateDevices", "PrivateUsers",
                "PrivateMounts", "ProtectHostname", "ProtectClock", "ProtectKernelTunables", "ProtectKernelModules",
                "ProtectKernelLogs", "ProtectControlGroups", "RestrictNamespaces", "RestrictRealtime",
                "RestrictSUIDSGID", "LockPersonality", "RemoveIPC")) {
            expected.put(key, "true");
        }
        expected.put("ProtectSystem", "strict");
        expected.put("CapabilityBoundingSet", "");
        expected.put("AmbientCapabilities", "");
        expected.put("ProtectProc", "invisible");
        expected.put("RestrictAddressFamilies", "AF_INET AF_INET6 AF_UNIX");
        expected.put("SystemCallArchitectures", "native");
        expected.put("SystemCallErrorNumber", "EPERM");
        expected.put("UMask", "0077");
        for (Map.Entry<String, String> e : expected.entrySet()) {
            assertEquals(e.getValue(), one(service, e.getKey()), e.getKey());
        }
        assertEquals(List.of("@system-service", "~@privileged @resources"), service.get("SystemCallFilter"));
        // What a JVM cannot have, each with the reason next to it.
        assertFalse(service.containsKey("MemoryDenyWriteExecute"), "the JIT writes code it then runs");
        assertTrue(text.contains("# Not MemoryDenyWriteExecute=true: the JIT compiler"), "the unit says why not");
        assertFalse(service.containsKey("ProcSubset"), "the JVM reads /proc/cgroups for its memory limit");
        assertTrue(text.contains("# Not ProcSubset=pid: the JVM reads /proc/cgroups"), "the unit says why not");
    }

    /** Where systemd-analyze can rate a unit file (systemd 250 and newer: {@code --offline}), it rates ours OK. */
    @Test
    void systemdAnalyzeSecurityRatesTheUnitOkWhereItIsInstalled() throws Exception {
        Path analyze = Path.of("/usr/bin/systemd-analyze");
        Assumptions.assumeTrue(Files.isExecutable(analyze), "systemd-analyze is not installed here");
        Process process = new ProcessBuilder(analyze.toString(), "security", "--offline=true", "--no-pager",
                UNIT.toString()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "systemd-analyze security did not end");
        Assumptions.assumeFalse(output.contains("--offline") && output.contains("unrecognized option"),
                "this systemd-analyze cannot rate a unit file offline (systemd 250 or newer can): " + output);
        Matcher level = Pattern.compile("Overall exposure level for " + Pattern.quote(UNIT.getFileName().toString())
                + ": (\\d+\\.\\d) (\\S+)").matcher(output);
        assertTrue(level.find(), output);
        double exposure = Double.parseDouble(level.group(1));
        assertTrue(exposure <= 3.0, "exposure " + exposure + " " + level.group(2) + ", more than 3.0:\n" + output);
        assertEquals("OK", level.group(2), output);
        System.out.println("systemd-analyze security: " + level.group(1) + " " + level.group(2));
    }

    @Test
    void systemdAnalyzeFindsNothingToSayWhereItIsInstalled() throws Exception {
        Path analyze = Path.of("/usr/bin/systemd-analyze");
        Assumptions.assumeTrue(Files.isExecutable(analyze), "systemd-analyze is not installed here");
        Process process = new ProcessBuilder(analyze.toString(), "verify", UNIT.toString())
                .redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "systemd-analyze verify did not end");
        // Only complaints about the file itself: a build machine need not have java at /usr/bin or the user.
        List<String> complaints = output.lines().filter(l -> l.contains(UNIT.getFileName().toString()))
                .filter(l -> l.contains("Unknown") || l.contains("Failed to parse") || l.contains("Invalid")
                        || l.contains("Missing"))
                .toList();
        assertEquals(List.of(), complaints, output);
    }
}
