package io.rc10k.benchmarks.capacity;

import io.rc10k.benchmarks.launch.Finish;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What a {@link ColdBurst} run saw: one {@link Round} per burst, the first on a cold server, and the
 * machine it ran on with the load average before and after (the machine is shared).
 */
public record ColdBurstReport(ColdBurst.Settings settings, String machine, String serverJdk, String loadBefore,
        String loadAfter, List<Round> rounds) implements Finish.Result {

    public ColdBurstReport {
        rounds = List.copyOf(rounds);
    }

    /**
     * One burst.
     *
     * @param ok            answers 200 with {@code Mashup-Complete: true}
     * @param failed        everything else: other statuses, 200s without it, no answer
     * @param answers       answers by status, as {@link Http1Burst#answers()}
     * @param sendMillis    from the first connect to the last request written
     * @param answerMillis  from the first connect to the last answer read; -1 when none came
     * @param liveThreads   the server's {@code jvm_threads_live_threads} just after the burst
     * @param peakThreads   the server's {@code jvm_threads_peak_threads}: the most since it started
     */
    public record Round(int round, int ok, int failed, String firstFailure, Map<String, Integer> answers,
            long sendMillis, long answerMillis, long liveThreads, long peakThreads) {

        public Round {
            answers = Map.copyOf(answers);
        }

        String label() {
            return round == 1 ? "1 (cold)" : Integer.toString(round);
        }

        String answered(int concurrent) {
            String answered = answers.entrySet().stream().sorted(Map.Entry.comparingByKey())
                    .map(e -> String.format(Locale.ROOT, "%,d × %s", e.getValue(), e.getKey()))
                    .collect(Collectors.joining(", "));
            int unanswered = concurrent - answers.values().stream().mapToInt(Integer::intValue).sum();
            if (unanswered > 0) {
                answered += String.format(Locale.ROOT, "%s%,d without an answer", answered.isEmpty() ? "" : ", ",
                        unanswered);
            }
            return answered;
        }

        String line(int concurrent) {
            return String.format(Locale.ROOT, "burst %s: all sent in %,d ms, last answer after %,d ms; %s; %,d of %,d "
                    + "complete; server threads live %d, peak %d%s", label(), sendMillis, answerMillis,
                    answered(concurrent), ok, concurrent, liveThreads, peakThreads,
                    firstFailure == null ? "" : "; first failure: " + firstFailure);
        }
    }

    public boolean passed() {
        return rounds.size() == settings.rounds()
                && rounds.stream().allMatch(r -> r.ok() == settings.concurrent() && r.failed() == 0);
    }

    /** A Markdown table, a row per burst, with the machine and the load average beneath. */
    public String table() {
        StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "%,d concurrent GET /mashup/paper (partners "
                + "0.5 s and 1 s, %s, own process, circuit breakers %s, partners %s), --mode %s --max-threads %d, a fresh "
                + "server%n%n", settings.concurrent(), settings.h2c() ? "h2c" : "HTTP/1.1",
                settings.breaker() ? "on" : "off", settings.partnerWarmup() > 0 ? "warmed" : "cold",
                settings.mode(), settings.maxThreads()));
        out.append("| burst | all sent (ms) | first request → last answer (ms) | answers | 200 + complete "
                + "| server live threads after | server peak threads |\n|---|---|---|---|---|---|---|\n");
        for (Round r : rounds) {
            out.append(String.format(Locale.ROOT, "| %s | %,d | %s | %s | %,d of %,d | %d | %d |%n", r.label(),
                    r.sendMillis(), r.answerMillis() < 0 ? "—" : String.format(Locale.ROOT, "%,d", r.answerMillis()),
                    r.answered(settings.concurrent()), r.ok(), settings.concurrent(), r.liveThreads(),
                    r.peakThreads()));
        }
        out.append('\n');
        for (Round r : rounds) {
            if (r.firstFailure() != null) {
                out.append("burst ").append(r.label()).append(", first failure: ").append(r.firstFailure()).append('\n');
            }
        }
        out.append("machine: ").append(machine).append("; mashup server on ").append(serverJdk).append('\n');
        out.append("load average (1, 5, 15 min): ").append(loadBefore).append(" at the start, ").append(loadAfter)
                .append(" at the end\n");
        out.append(passed() ? "every answer of every burst: 200, Mashup-Complete: true\n"
                : "NOT every answer was 200 with Mashup-Complete: true\n");
        return out.toString();
    }
}
