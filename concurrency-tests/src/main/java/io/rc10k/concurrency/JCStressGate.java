package io.rc10k.concurrency;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.openjdk.jcstress.JCStress;
import org.openjdk.jcstress.Options;
import org.openjdk.jcstress.infra.collectors.DiskReadCollector;
import org.openjdk.jcstress.infra.collectors.InProcessCollector;
import org.openjdk.jcstress.infra.collectors.TestResult;
import org.openjdk.jcstress.infra.grading.ReportUtils;
import org.openjdk.jcstress.infra.runners.TestList;

/**
 * Runs jcstress as {@code org.openjdk.jcstress.Main} does, with the same options, then exits 1 when a test
 * saw a forbidden outcome, ended in an error, or did not run at all; 0 only when every selected test ran
 * and passed. jcstress itself fails (an uncaught error) on forbidden outcomes and errors, but exits 0 when
 * no test matched or a test never ran, and says so only in its long report.
 *
 * <pre>{@code
 * java -cp concurrency-tests/target/jcstress.jar io.rc10k.concurrency.JCStressGate -m quick
 * }</pre>
 */
public final class JCStressGate {
    private JCStressGate() {
    }

    public static void main(String[] args) throws Exception {
        Options options = new Options(args);
        if (!options.parse()) {
            System.exit(2);
        }
        if (options.shouldList() || options.shouldParse()) {
            System.err.println("JCStressGate: -l and -p do not run tests; use org.openjdk.jcstress.Main for them");
            System.exit(2);
        }
        try {
            new JCStress(options).run();
        } catch (AssertionError e) {
            // jcstress's own verdict on failed and errored tests (its report is printed); ours follows.
            System.out.println(e.getMessage());
        }
        System.exit(verdict(options) ? 0 : 1);
    }

    /** Reads the run's results back, as jcstress's own report does, and prints one line per test. */
    private static boolean verdict(Options options) throws Exception {
        Pattern selected = Pattern.compile(options.getTestFilter());
        Map<String, String> expected = new TreeMap<>();
        for (String test : TestList.tests()) {
            if (selected.matcher(test).find()) {
                expected.put(test, "DID NOT RUN");
            }
        }
        if (expected.isEmpty()) {
            System.out.println("JCStressGate: no test matches \"" + options.getTestFilter() + "\"");
            return false;
        }
        if (new File(options.getResultFile()).isFile()) {
            InProcessCollector collector = new InProcessCollector();
            DiskReadCollector results = new DiskReadCollector(options.getResultFile(), collector);
            results.dump();
            results.close();
            for (TestResult result : ReportUtils.mergedByName(collector.getTestResults())) {
                // OK, or what went wrong: FAILED (a forbidden outcome), ERROR, TIMEOUT, VM ERROR, SKIPPED.
                expected.put(result.getName(), ReportUtils.statusToPassed(result) ? "OK"
                        : ReportUtils.statusToLabel(result));
            }
        }
        List<String> failed = new ArrayList<>();
        System.out.println("JCStressGate: " + expected.size() + " tests");
        expected.forEach((test, verdict) -> {
            System.out.printf("  %-11s %s%n", verdict, test);
            if (!verdict.equals("OK")) {
                failed.add(test);
            }
        });
        if (!failed.isEmpty()) {
            System.out.println("JCStressGate: " + failed.size() + " of " + expected.size()
                    + " failed or did not run; the run's report is in " + options.getResultDest() + "index.html");
            return false;
        }
        return true;
    }
}
