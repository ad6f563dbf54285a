package io.rc10k.experiments;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.experiments.ReactorSurfaceExperiment.Point;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The quick variant of the reactor surface (docs/results/reactor-surface.md), so that the experiment never rots:
 * the real stubs and server processes, SRST and SRMT on 4 workers, a sleep and a C = 1 mashup at 0 and 5,000 µs,
 * 100 clients, a second per point. Checks the shape, not the speed: SRST falls with a sleep on its one thread,
 * the partner call waited for without a thread keeps QPS flat where the sleep falls.
 */
class ReactorSurfaceExperimentIT {
    @TempDir
    Path out;

    @Test
    void aTinySurfaceShowsSrstFallingWithASleepAndTheAsyncPartnerFlat() throws Exception {
        int status = Experiments.run("reactor-surface", "--root", System.getProperty("rc10k.root", "."),
                "--out", out.toString(), "--models", "srst,srmt", "--threads", "4", "--micros", "0,5000",
                "--kinds", "sleep,c1", "--connections", "keep-alive", "--clients", "100", "--warmup-ms", "500",
                "--measure-ms", "1000");
        List<Point> points = ReactorSurfaceReport.read(out);
        assertEquals(8, points.size(), "two models × two kinds × two business times");
        for (Point p : points) {
            assertTrue(p.ok() > 0 && p.failed() == 0, "every point answered, none failed: " + p.csv());
        }
        double sleep0 = qps(points, "srst", "sleep", 0);
        double sleep5 = qps(points, "srst", "sleep", 5_000);
        double partner0 = qps(points, "srst", "c1", 0);
        double partner5 = qps(points, "srst", "c1", 5_000);
        assertTrue(sleep5 < sleep0 / 2, "SRST falls with a 5 ms sleep: " + sleep5 + " against " + sleep0);
        assertTrue(sleep5 <= 1_000_000 / 5_000 * 1.1, "one thread sleeping 5 ms answers at most ~200/s: " + sleep5);
        assertTrue(partner5 >= partner0 / 2, "the partner call keeps QPS flat: " + partner5 + " against " + partner0);
        assertTrue(partner5 > 2 * sleep5, "where the sleep falls: " + partner5 + " against " + sleep5);
        for (String file : List.of("reactor-surface.md", "reactor-surface-time.svg",
                "reactor-surface-time-long.svg", "reactor-surface-threads.svg")) {
            assertTrue(Files.size(out.resolve(file)) > 200, file + " written");
        }
        assertEquals(0, status, "every check held (listed in reactor-surface.md)");
    }

    private static double qps(List<Point> points, String model, String kind, int micros) {
        return points.stream().filter(p -> p.model().equals(model) && p.kind().equals(kind) && p.micros() == micros)
                .mapToDouble(Point::qps).findFirst().orElseThrow();
    }
}
