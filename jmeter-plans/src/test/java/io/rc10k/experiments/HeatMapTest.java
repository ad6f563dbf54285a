package io.rc10k.experiments;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;

class HeatMapTest {
    @TempDir
    Path dir;

    @Test
    void writesWellFormedSvgWithACellPerValueTheLargestDarkestAndMissingOnesGrey() throws Exception {
        Path file = dir.resolve("h.svg");
        new HeatMap("QPS & threads", "µs", "threads", List.of("0", "200"), List.of("1", "2"),
                new double[][] {{4_000, 1_000}, {8_000, Double.NaN}}).write(file);
        Document svg = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(file.toFile());
        assertEquals(1 + 4, svg.getElementsByTagName("rect").getLength(), "the background and a cell per value");
        String text = Files.readString(file);
        assertTrue(text.contains("QPS &amp; threads"));
        assertTrue(text.contains("fill=\"#1a3c8c\"") && text.contains(">8,000<"), "the largest value is the darkest");
        assertTrue(text.contains("fill=\"#cccccc\"") && text.contains(">—<"), "a missing value is a grey dash");
    }
}
