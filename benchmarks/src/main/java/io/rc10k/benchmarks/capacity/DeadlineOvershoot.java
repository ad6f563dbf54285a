package io.rc10k.benchmarks.capacity;

import io.rc10k.broker.BrokerClient;
import io.rc10k.broker.Call;
import io.rc10k.broker.FanOutResult;
import io.rc10k.broker.Outcome;
import io.rc10k.broker.Partner;
import io.rc10k.broker.Protocol;
import io.rc10k.harness.CommandLine;
import io.rc10k.stubs.PartnerStubs;
import io.rc10k.stubs.StubOptions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * How soon after its deadline a fan-out completes: the broker-client issue's case — calls of 100 ms,
 * 200 ms and 5 s under a 1 s deadline — repeated, over HTTP/1.1 and h2c, against in-process stubs.
 * Prints each fan-out's elapsed time beyond the deadline as {@link Lateness} percentiles.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.rc10k.benchmarks.capacity.DeadlineOvershoot [--repeats N | N]
 * </pre>
 */
public final class DeadlineOvershoot {
    private static final Duration DEADLINE = Duration.ofSeconds(1);

    private DeadlineOvershoot() {
    }

    public static void main(String[] args) throws Exception {
        int repeats = 20;
        CommandLine line = new CommandLine("deadline-overshoot", "[--repeats N | N] (fan-outs per partner, 20) "
                + "--help --version", args);
        while (line.next()) {
            switch (line.option()) {
                case "--repeats" -> repeats = line.intValue();
                default -> {
                    if (line.option().startsWith("-")) {
                        line.unknown();
                    }
                    try {
                        repeats = Integer.parseInt(line.option());
                    } catch (NumberFormatException e) {
                        throw line.fail(line.option(), "not a number of repeats");
                    }
                }
            }
        }
        if (repeats < 1) {
            throw line.fail("--repeats", repeats + " (accepted: at least 1)");
        }
        try (PartnerStubs stubs = PartnerStubs.start(StubOptions.builder().h2c(true).build())) {
            BrokerClient broker = BrokerClient.builder()
                    .partner(Partner.builder("h1", stubs.uri().toString()).build())
                    .partner(Partner.builder("h2c", stubs.uri().toString()).protocol(Protocol.H2C).build())
                    .build();
            broker.start();
            try {
                for (String partner : List.of("h1", "h2c")) {
                    Lateness late = new Lateness();
                    for (int i = 0; i < repeats; i++) {
                        FanOutResult result = broker.fanOut(DEADLINE)
                                .add(Call.to(partner).path("stub?delay=100").build())
                                .add(Call.to(partner).path("stub?delay=200").build())
                                .add(Call.to(partner).path("stub?delay=5000").build())
                                .start().toCompletableFuture().get(10, TimeUnit.SECONDS);
                        if (result.count(Outcome.Kind.OK) != 2 || result.count(Outcome.Kind.TIMEOUT) != 1) {
                            throw new IllegalStateException("unexpected outcomes: " + result.outcomes());
                        }
                        late.record(result.elapsedNanos() - DEADLINE.toNanos());
                    }
                    System.out.printf("%s: %d fan-outs (100 ms, 200 ms, 5 s; deadline 1 s), each 2 OK + 1 TIMEOUT: "
                            + "complete after the deadline %s%n", partner, repeats, late.summary().line());
                }
            } finally {
                broker.stop();
            }
        }
    }
}
