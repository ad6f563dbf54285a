package io.rc10k.experiments;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResultsPageTest {

    @TempDir
    Path dir;

    @Test
    void aNewPageIsTheTitleAndTheGeneratedPart() throws Exception {
        Path page = dir.resolve("x.md");
        ResultsPage.write(page, "X against Y", "| a | b |\n|---|---|\n| 1 | 2 |\n");
        String written = Files.readString(page);
        assertTrue(written.startsWith("# X against Y\n\n" + ResultsPage.BEGIN + "\n\n| a | b |"), written);
        assertTrue(written.endsWith("| 1 | 2 |\n\n" + ResultsPage.END + "\n"), written);
    }

    @Test
    void aRunReplacesOnlyWhatLiesBetweenTheMarkers() throws Exception {
        Path page = dir.resolve("x.md");
        String question = "# X against Y\n\n**Question.** Does X beat Y?\n\n**Answer.** Yes, 2×.\n\n";
        String history = "\n\n## History\n\n- 2026-11-01, abc1234: 1.5×\n";
        Files.writeString(page, question + ResultsPage.BEGIN + "\n\nold table\n\n" + ResultsPage.END + history);

        ResultsPage.write(page, "ignored for a page that exists", "new table");
        ResultsPage.write(page, "ignored for a page that exists", "newer table");

        assertEquals(question + ResultsPage.BEGIN + "\n\nnewer table\n\n" + ResultsPage.END + history,
                Files.readString(page));
    }

    @Test
    void aPageWithoutMarkersIsWrittenWhole() throws Exception {
        Path page = dir.resolve("x.md");
        Files.writeString(page, "# An old page a tool wrote whole\n\nold table\n");
        ResultsPage.write(page, "X against Y", "new table");
        assertEquals("# X against Y\n\n" + ResultsPage.BEGIN + "\n\nnew table\n\n" + ResultsPage.END + "\n",
                Files.readString(page));
    }
}
