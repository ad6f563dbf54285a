package io.rc10k.experiments;

import java.util.ArrayList;
import java.util.List;

/** The checks of an experiment: each a sentence that held or failed, for its summary file and its exit status. */
final class Checks {
    private final List<String> lines = new ArrayList<>();
    private final List<String> failures = new ArrayList<>();

    void add(boolean held, String line) {
        lines.add((held ? "held: " : "FAILED: ") + line);
        if (!held) {
            failures.add(line);
        }
    }

    List<String> failures() {
        return failures;
    }

    /** A Markdown section listing every check. */
    String markdown() {
        StringBuilder md = new StringBuilder("\n## Checks\n\n");
        lines.forEach(line -> md.append("- ").append(line).append('\n'));
        return md.toString();
    }
}
