package io.rc10k.experiments;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;

class SvgChartTest {
    @TempDir
    Path dir;

    @Test
    void writesWellFormedSvgWithOneLinePerSeriesAndLogTicks() throws Exception {
        Path file = dir.resolve("c.svg");
        new SvgChart("Threads & users", "users", "threads", true, true)
                .add(new SvgChart.Series("sync", "#c0392b", false, new double[] {10, 100, 1000}, new double[] {25, 250, 2500}))
                .add(new SvgChart.Series("Eq. 1", "#c0392b", true, new double[] {10, 100, 1000}, new double[] {25, 250, Double.NaN}))
                .write(file);
        Document svg = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(file.toFile());
        assertEquals(2, svg.getElementsByTagName("polyline").getLength());
        assertEquals(3, svg.getElementsByTagName("circle").getLength(), "points on the measured line only");
        String text = Files.readString(file);
        assertTrue(text.contains("Threads &amp; users"));
        assertTrue(text.contains(">20<") && text.contains(">1,000<") && text.contains(">10,000<"),
                "ticks at 1, 2 and 5 of each decade, the y axis up to the decade above 2,500");
        assertTrue(text.contains("stroke-dasharray"), "the prediction is dashed");
    }
}
