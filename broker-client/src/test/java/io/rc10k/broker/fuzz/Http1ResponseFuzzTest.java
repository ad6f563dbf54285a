package io.rc10k.broker.fuzz;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.rc10k.broker.BrokerClient;
import io.rc10k.broker.Partner;
import io.rc10k.stubs.PartnerStubsExtension;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fuzzing of the broker's HTTP/1.1 response path (Http1Connection and Jetty's HttpParser behind it): a
 * partner's bytes in, exactly one outcome out — no exception escapes, no hang, memory bounded, and the
 * outcome the bytes call for ({@link ReferenceParse}). One client and one {@link RawPartner} serve the
 * whole class, so thousands of tries run in a minute.
 *
 * <p>Quick by default (a fixed seed, {@value #DEFAULT_TRIES} tries, plus the checked-in corpus). Longer:
 * {@code -Dfuzz.tries=N} or {@code -Dfuzz.minutes=M}, with {@code -Dfuzz.seed=S} (a random seed when minutes
 * are given without one); {@code -Dfuzz.try=I} replays the one try I of seed S. See docs/results/fuzzing.md.
 * A failure is shrunk, printed as a corpus line and a Java literal, and written to
 * {@code target/fuzz-failures/}.</p>
 */
class Http1ResponseFuzzTest {
    static final long DEFAULT_SEED = 0x5EED_2026_1121L;
    static final int DEFAULT_TRIES = 1_500;
    static final long MAX_RESPONSE_BYTES = 64 * 1024;
    static final Duration CALL_TIMEOUT = Duration.ofMillis(300);
    /** A call to the well-behaved partner every this many tries. */
    static final int WELL_BEHAVED_EVERY = 50;
    /** Distinct faults a run shrinks and reports before it stops looking. */
    static final int MAX_FAULTS = 5;

    @RegisterExtension
    static final PartnerStubsExtension stubs = new PartnerStubsExtension();

    private static RawPartner partner;
    private static BrokerClient broker;
    private static LogWatch watch;
    private static Http1Fuzzer fuzzer;

    @BeforeAll
    static void start() throws Exception {
        partner = RawPartner.start();
        broker = BrokerClient.builder()
                .partner(Http1Fuzzer.partner("raw", partner.port(), MAX_RESPONSE_BYTES, CALL_TIMEOUT))
                .partner(Partner.builder("good", stubs.uri().toString()).retries(0).build())
                // As much as one raw call may hold: a call that needed more, or bytes not given back, show
                // up as MEMORY_BUDGET (the calls run one at a time).
                .maxBufferedBytes(MAX_RESPONSE_BYTES)
                .build();
        broker.start();
        watch = LogWatch.install();
        fuzzer = new Http1Fuzzer(broker, "raw", partner, watch);
    }

    @AfterAll
    static void stop() throws Exception {
        if (watch != null) {
            watch.close();
        }
        if (broker != null) {
            broker.stop();
        }
        if (partner != null) {
            partner.close();
        }
    }

    @Test
    void everyPartnerAnswerEndsItsCallOnceAsItsBytesSay() throws Exception {
        FuzzRun settings = FuzzRun.fromProperties(DEFAULT_SEED, DEFAULT_TRIES);
        String minutesProperty = settings.minutes();
        long seed = settings.seed();
        long deadline = settings.deadlineNanos();
        int tries = settings.tries();
        Integer only = settings.only();

        FuzzStats stats = new FuzzStats(seed);
        List<String> faults = new ArrayList<>();
        List<String> faultKeys = new ArrayList<>();
        ResponseGenerator generator = new ResponseGenerator();
        System.out.println("fuzz: seed " + seed + (minutesProperty != null ? ", " + minutesProperty + " minutes"
                : ", " + (only != null ? "try " + only : tries + " tries")));
        for (int i = only != null ? only : 0; i < (only != null ? only + 1 : tries) && System.nanoTime() < deadline;
                i++) {
            ResponsePlan plan = generator.next(new Random(trySeed(seed, i)));
            Http1Fuzzer.Result result = fuzzer.run(plan);
            stats.record(result);
            if (only != null) {
                System.out.println("fuzz: try " + i + ": " + plan + "\n  " + Escapes.escape(plan.bytes())
                        + "\n  expected " + result.expected() + ", got " + result.outcome());
            }
            if (result.failure() != null) {
                String key = result.failure().key();
                stats.fault(key);
                if (!faultKeys.contains(key)) {
                    faultKeys.add(key);
                    faults.add(report(seed, i, result));
                }
                if (Http1Fuzzer.breaksClient(key) || faultKeys.size() >= MAX_FAULTS) {
                    break; // enough to fix, or a client whose later tries would fail for this one's sake
                }
            }
            if (i % WELL_BEHAVED_EVERY == WELL_BEHAVED_EVERY - 1) {
                String wrong = Http1Fuzzer.checkWellBehaved(broker, "good");
                if (wrong != null) {
                    faults.add("after try " + i + " (seed " + seed + "): " + wrong);
                    break;
                }
            }
        }
        stats.malformedWarnings(watch.malformedWarnings());
        String summary = stats.summary();
        System.out.println(summary);
        write(Path.of("target", "fuzz-report.txt"), summary + "\n" + String.join("\n\n", faults));
        if (!faults.isEmpty()) {
            fail(faults.size() + " fault(s) found (seed " + seed + "):\n\n" + String.join("\n\n", faults));
        }
    }

    static Stream<Arguments> corpus() {
        return Corpus.load().stream().map(Arguments::of);
    }

    /**
     * Each checked-in answer three ways — in one write then a close, one byte a write (with a pause halfway)
     * then a close, in one write on a connection kept open — must give its recorded outcome and pass every
     * check of a fuzz try.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("corpus")
    void corpusAnswerEndsItsCallAsRecorded(Corpus.Case c) throws Exception {
        byte[] bytes = c.bytes();
        List<ResponsePlan> plans = List.of(
                ResponsePlan.whole(c.name() + " (close)", bytes, ResponsePlan.Ending.CLOSE),
                // A pause halfway: the bytes buffered then are checked against the bytes sent.
                ResponsePlan.cut(c.name() + " (close, bytewise)", bytes, bytes.length <= 4096 ? 1 : 997,
                        ResponsePlan.Ending.CLOSE).pausingAfter(bytes.length <= 4096 ? bytes.length / 2 : 35, 1),
                ResponsePlan.whole(c.name() + " (keep open)", bytes, ResponsePlan.Ending.KEEP_OPEN));
        for (ResponsePlan plan : plans) {
            Http1Fuzzer.Result result = fuzzer.run(plan);
            assertNull(result.failure(), () -> plan + ": " + result.failure());
            Corpus.Expect expect = plan.ending() == ResponsePlan.Ending.KEEP_OPEN ? c.keepOpenExpect()
                    : c.closeExpect();
            assertTrue(expect.matches(result.outcome()), () -> plan + ": recorded " + expect + ", got "
                    + result.outcome());
        }
    }

    /** A different stream of plans for every seed and try, each reproducible on its own. */
    static long trySeed(long seed, int i) {
        long z = seed + 0x9E3779B97F4A7C15L * (i + 1);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    private static String report(long seed, int i, Http1Fuzzer.Result failed) throws InterruptedException {
        Http1Fuzzer.Result smallest = failed;
        int shrinkTries = 0;
        String key = failed.failure().key();
        if (!Http1Fuzzer.breaksClient(key)) {
            Shrinker shrinker = new Shrinker(fuzzer, 400, 120);
            smallest = shrinker.shrink(failed);
            shrinkTries = shrinker.tries();
        }
        ResponsePlan plan = smallest.plan();
        StringBuilder text = new StringBuilder()
                .append("FAULT ").append(key).append(" — seed ").append(seed).append(", try ").append(i)
                .append(" (-Dfuzz.seed=").append(seed).append(" -Dfuzz.try=").append(i).append(")\n")
                .append("  ").append(failed.failure().description()).append('\n')
                .append("  generated: ").append(failed.plan()).append('\n')
                .append("  shrunk in ").append(shrinkTries).append(" tries to: ").append(plan).append('\n')
                .append("  writes: ").append(Arrays.toString(plan.writes())).append('\n')
                .append("  expected ").append(smallest.expected()).append(", got ").append(smallest.outcome())
                .append('\n')
                .append("  ").append(smallest.failure()).append('\n')
                .append("  as Java: ").append(Escapes.javaLiteral(plan.bytes())).append('\n')
                .append("  as corpus bytes: ").append(Escapes.escape(plan.bytes())).append('\n')
                .append("  hex:\n").append(Escapes.hex(plan.bytes(), 512));
        String report = text.toString();
        System.out.println(report);
        write(Path.of("target", "fuzz-failures", key.replaceAll("[^A-Za-z0-9_-]", "_") + "-" + seed + "-" + i + ".txt"),
                report);
        return report;
    }

    static void write(Path file, String text) {
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            System.out.println("fuzz: could not write " + file + ": " + e);
        }
    }
}
