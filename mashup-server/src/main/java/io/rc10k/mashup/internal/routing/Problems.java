package io.rc10k.mashup.internal.routing;

import io.rc10k.mashup.DefinitionException.Problem;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The problems found in one definitions file, each with its line and column, in the order of the file. Two kinds
 * arrive: those the reader finds as it walks the file (a type, a range, an unknown or duplicate key), and those the
 * checks of {@link io.rc10k.mashup.Definitions.Builder#build()} find afterwards in what was read (an unknown partner, a
 * template's parameters), which name a path but no line. A later problem is placed at the value its path names (or
 * the nearest enclosing one that the file has), and dropped when the reader already reported that value or one that
 * encloses it: a call whose partner is missing is not also a call of an unknown partner.
 */
final class Problems {
    private final List<Problem> found = new ArrayList<>();
    /** Paths whose value has a problem reported, or was made up because of one. */
    private final Set<String> reported = new HashSet<>();

    /** A problem of the value at {@code path}, which starts at line, column: "path: detail". */
    void add(int line, int column, String path, String detail) {
        found.add(new Problem(path.isEmpty() ? detail : path + ": " + detail, line, column));
        if (!path.isEmpty()) {
            reported.add(path);
        }
    }

    /** A problem of this value, reported where it starts. */
    void at(JsonTree.Node node, String detail) {
        add(node.line(), node.column(), node.path(), detail);
    }

    /**
     * A problem of this value's key (a name, a duplicate), reported where the key starts. The value itself is still
     * checked: later problems of it are news.
     */
    void atKey(JsonTree.Node node, String detail) {
        found.add(new Problem(node.path() + ": " + detail, node.keyLine(), node.keyColumn()));
    }

    /** The value at this path was made up (a default in place of a value with a problem): checks of it are not news. */
    void madeUp(String path) {
        reported.add(path);
    }

    int count() {
        return found.size();
    }

    /**
     * A problem found by a later check, {@code "path: detail"}; placed at the value the longest path in the file that
     * begins it names, or dropped when the reader reported that path, or one enclosing it, already.
     */
    void later(String message, JsonTree tree) {
        for (String path = pathOf(message, tree); !path.isEmpty(); path = parent(path)) {
            if (reported.contains(path)) {
                return;
            }
        }
        String longest = longestPathIn(message, tree);
        JsonTree.Node node = tree.at(longest);
        if (node.type() == JsonTree.Type.INTEGER && message.startsWith(longest + ": ")) {
            // A check of an int field shows it clamped (Value.intValue); the file has it as written.
            int at = longest.length() + 2;
            message = message.substring(0, at) + Value.asWritten(message.substring(at), Value.asInt(node), node);
        }
        found.add(new Problem(message, node.line(), node.column()));
    }

    /** Every problem, in the order of the file (problems at one place in the order found). */
    List<Problem> inFileOrder() {
        List<Problem> sorted = new ArrayList<>(found);
        sorted.sort(Comparator.comparingInt(Problem::line).thenComparingInt(Problem::column));
        return sorted;
    }

    /**
     * The path a message names: what precedes its first ": " that is not inside a name of the file. Names in the
     * file may hold ": " or dots, so the longest path of the file the message begins with is extended to the colon.
     */
    private static String pathOf(String message, JsonTree tree) {
        String known = longestPathIn(message, tree);
        int colon = message.indexOf(": ", known.length());
        return colon < 0 ? known : message.substring(0, colon);
    }

    /** The longest path of a value in the file that the message begins with, followed by ':', '.' or '['; "" else. */
    private static String longestPathIn(String message, JsonTree tree) {
        String best = "";
        for (int end = 0; end < message.length(); end++) {
            char c = message.charAt(end);
            if ((c == ':' || c == '.' || c == '[') && tree.at(message.substring(0, end)) != null) {
                best = message.substring(0, end);
            }
        }
        return best;
    }

    /** {@code a.b[2].c} → {@code a.b[2]} → {@code a.b} → {@code a} → {@code ""}. */
    private static String parent(String path) {
        int cut = Math.max(path.lastIndexOf('.'), path.lastIndexOf('['));
        return cut < 0 ? "" : path.substring(0, cut);
    }
}
