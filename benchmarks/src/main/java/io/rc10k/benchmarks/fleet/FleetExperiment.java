package io.rc10k.benchmarks.fleet;

import com.sun.management.OperatingSystemMXBean;
import io.rc10k.harness.CommandLine;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * How many partner calls a fleet holds at once, every answer complete: 1 and 3 mashup-server instances
 * behind HAProxy (the recipe in {@code deploy/haproxy/}), partners in processes of their own, a mashup
 * of C = 6 calls of 5 s each, open-model arrivals stepped up until answers fail; per instance count the
 * highest outbound calls in flight in a phase where every answer was complete, and the CPU per mashup
 * the instances and HAProxy used.
 *
 * <pre>
 * ./mvnw -q package -DskipTests
 * java -cp benchmarks/target/benchmarks.jar io.rc10k.benchmarks.fleet.FleetExperiment --instances 1,3
 * </pre>
 *
 * Run from the repository root (or name the jars with {@code -Drc10k.stubs.jar=…}, {@code -Drc10k.mashup.jar=…}
 * and the recipe with {@code -Drc10k.haproxy.recipe=…}); needs {@code /usr/sbin/haproxy}. Bounded: each phase
 * sends {@code rate × phase-seconds} requests, and every request has a client timeout. Exit 0 when the
 * first (lowest) rate was answered complete at every instance count, 1 otherwise, 2 for a bad line, 3 when
 * HAProxy is missing.
 */
public final class FleetExperiment {
    /** What one run does. */
    public record Settings(List<Integer> instances, List<Double> rates, int phaseSeconds, int callMillis,
            int warmUpSeconds) {
        public Settings {
            if (instances.isEmpty() || rates.isEmpty() || phaseSeconds < 1 || callMillis < 1 || warmUpSeconds < 0) {
                throw new IllegalArgumentException("instances " + instances + ", rates " + rates + ", phase "
                        + phaseSeconds + " s, calls " + callMillis + " ms, warm-up " + warmUpSeconds + " s");
            }
        }
    }

    private FleetExperiment() {
    }

    public static void main(String[] args) throws Exception {
        String usage = "--instances 1,3 --rates 50,100,150,200,250,300,400 --phase-seconds 20 --call-millis 5000 "
                + "--warm-up-seconds 10 --help --version";
        List<Integer> instances = List.of(1, 3);
        List<Double> rates = List.of(50.0, 100.0, 150.0, 200.0, 250.0, 300.0, 400.0);
        int phaseSeconds = 20;
        int callMillis = 5_000;
        int warmUp = 10;
        CommandLine line = new CommandLine("fleet", usage, args);
        while (line.next()) {
            switch (line.option()) {
                case "--instances" -> instances = line.intList();
                case "--rates" -> rates = line.doubleList();
                case "--phase-seconds" -> phaseSeconds = line.intValue();
                case "--call-millis" -> callMillis = line.intValue();
                case "--warm-up-seconds" -> warmUp = line.intValue();
                default -> line.unknown();
            }
        }
        // Ctrl-C or SIGTERM: HAProxy, the instances and the stubs end with the experiment, not after it.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> ProcessHandle.current().descendants()
                .forEach(ProcessHandle::destroy), "stop-children"));
        String why = HaproxyProcess.unavailable();
        if (why != null) {
            System.err.println("fleet: " + why);
            System.exit(3);
        }
        System.out.println("machine: " + Runtime.getRuntime().availableProcessors() + " cores, "
                + ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                        .getTotalMemorySize() / (1L << 30) + " GiB, JDK " + Runtime.version());
        List<FleetPhase> phases = run(new Settings(instances, rates, phaseSeconds, callMillis, warmUp));
        System.exit(firstRateCompleteEverywhere(phases, instances, rates.get(0)) ? 0 : 1);
    }

    /** Every instance count in turn, each on fresh processes; stepping up stops at the first phase with a failed answer. */
    public static List<FleetPhase> run(Settings settings) throws Exception {
        List<FleetPhase> phases = new ArrayList<>();
        for (int n : settings.instances()) {
            try (Fleet fleet = Fleet.start(n, settings.callMillis())) {
                if (settings.warmUpSeconds() > 0) {
                    System.out.printf("%d instance(s): warm-up at %.0f/s for %d s (not reported)%n", n,
                            settings.rates().get(0), settings.warmUpSeconds());
                    fleet.phase(settings.rates().get(0), settings.warmUpSeconds());
                }
                for (double rate : settings.rates()) {
                    System.out.printf("%d instance(s): %.0f arrivals/s for %d s%n", n, rate, settings.phaseSeconds());
                    FleetPhase phase = fleet.phase(rate, settings.phaseSeconds());
                    phases.add(phase);
                    System.out.println(FleetPhase.header());
                    System.out.println(phase.row());
                    if (!phase.allComplete()) {
                        break;
                    }
                }
            }
        }
        System.out.println();
        System.out.println(FleetPhase.header());
        phases.forEach(p -> System.out.println(p.row()));
        System.out.println();
        for (int n : settings.instances()) {
            phases.stream().filter(p -> p.instances() == n && p.allComplete())
                    .max((a, b) -> Double.compare(a.maxOutbound(), b.maxOutbound()))
                    .ifPresentOrElse(p -> System.out.printf("%d instance(s): %,.0f outbound calls held at once with "
                                    + "every answer complete (%.0f arrivals/s)%n", n, p.maxOutbound(), p.rate()),
                            () -> System.out.printf("%d instance(s): no phase with every answer complete%n", n));
        }
        return phases;
    }

    static boolean firstRateCompleteEverywhere(List<FleetPhase> phases, List<Integer> instances, double rate) {
        return instances.stream().allMatch(n -> phases.stream()
                .anyMatch(p -> p.instances() == n && p.rate() == rate && p.allComplete()));
    }
}
