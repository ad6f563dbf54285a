package io.rc10k.benchmarks.tuning;

import java.util.ArrayList;
import java.util.List;

/**
 * One knob's sweep as a Markdown table: the knob, what it asks, its columns, a row per value, and notes
 * (how it was measured, what was not run and why). Not thread-safe: one sweep fills it.
 *
 * <pre>{@code
 * Table table = new Table("max-inflight", "How much does ... ?", List.of("--max-inflight", "200s/s"));
 * table.add("100", "98.0");
 * table.note("open model, 2,000/s for 10 s");
 * System.out.print(table.markdown());
 * }</pre>
 */
public final class Table {
    private final String knob;
    private final String question;
    private final List<String> columns;
    private final List<List<String>> rows = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();

    public Table(String knob, String question, List<String> columns) {
        if (columns.isEmpty()) {
            throw new IllegalArgumentException("a table of " + knob + " needs at least one column");
        }
        this.knob = knob;
        this.question = question;
        this.columns = List.copyOf(columns);
    }

    /** A row: one cell per column, in order. */
    public void add(String... cells) {
        if (cells.length != columns.size()) {
            throw new IllegalArgumentException(knob + ": a row of " + cells.length + " cells for " + columns.size()
                    + " columns " + columns);
        }
        rows.add(List.of(cells));
    }

    public void note(String note) {
        notes.add(note);
    }

    public String knob() {
        return knob;
    }

    public List<String> columns() {
        return columns;
    }

    public List<List<String>> rows() {
        return List.copyOf(rows);
    }

    public List<String> notes() {
        return List.copyOf(notes);
    }

    /** {@code ## knob}, the question, the table, the notes as a list. */
    public String markdown() {
        StringBuilder out = new StringBuilder("## ").append(knob).append("\n\n").append(question).append("\n\n");
        out.append("| ").append(String.join(" | ", columns)).append(" |\n|");
        out.append("---|".repeat(columns.size())).append('\n');
        for (List<String> row : rows) {
            out.append("| ").append(String.join(" | ", row)).append(" |\n");
        }
        if (!notes.isEmpty()) {
            out.append('\n');
            notes.forEach(n -> out.append("- ").append(n).append('\n'));
        }
        return out.toString();
    }
}
