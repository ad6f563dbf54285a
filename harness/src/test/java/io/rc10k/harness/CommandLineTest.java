package io.rc10k.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class CommandLineTest {
    private static final class Exited extends RuntimeException {
        final int status;

        Exited(int status) {
            super("exit " + status);
            this.status = status;
        }
    }

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private CommandLine line(String... args) {
        return new CommandLine("tool", "--count N --names A,B", args, new CommandLine.Console(
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                status -> {
                    throw new Exited(status);
                }));
    }

    /** What the tools do: a switch on the option, the value taken by type. */
    private static Object[] parse(CommandLine line) {
        int count = 1;
        List<String> names = List.of();
        while (line.next()) {
            switch (line.option()) {
                case "--count" -> count = line.intValue();
                case "--names" -> names = line.list();
                default -> line.unknown();
            }
        }
        return new Object[] {count, names};
    }

    @Test
    void readsValuesAndKeepsDefaultsForOptionsNotGiven() {
        Object[] parsed = parse(line("--names", "a,b"));
        assertEquals(1, parsed[0]);
        assertEquals(List.of("a", "b"), parsed[1]);
        assertEquals(7, parse(line("--count", "7"))[0]);
    }

    @Test
    void helpPrintsTheUsageToStdoutAndExits0() {
        Exited exited = assertThrows(Exited.class, () -> parse(line("--count", "3", "--help")));
        assertEquals(0, exited.status);
        assertEquals("usage: tool --count N --names A,B", out.toString(StandardCharsets.UTF_8).strip());
    }

    @Test
    void versionPrintsTheProjectVersionAndExits0() {
        Exited exited = assertThrows(Exited.class, () -> parse(line("--version")));
        assertEquals(0, exited.status);
        String printed = out.toString(StandardCharsets.UTF_8).strip();
        assertEquals(BuildVersion.line("tool"), printed);
    }

    @Test
    void anUnknownOptionExits2NamingIt() {
        assertBadLine("--colour: unknown option", "--colour");
    }

    @Test
    void anOptionWithoutItsValueExits2NamingIt() {
        assertBadLine("--count: needs a value", "--count");
    }

    @Test
    void anOptionFollowedByAnotherOptionExits2ForWantOfItsValue() {
        assertBadLine("--count: needs a value", "--count", "--names", "a");
    }

    @Test
    void anyValueTakesAWordThatLooksLikeAnOptionForAnotherProgram() {
        CommandLine line = line("--jvm-arg", "--enable-preview", "--count", "2");
        assertTrue(line.next());
        assertEquals("--enable-preview", line.anyValue());
        assertTrue(line.next());
        assertEquals(2, line.intValue());
        assertFalse(line.next());
    }

    @Test
    void aValueThatIsNotANumberExits2NamingTheOptionAndTheValue() {
        assertBadLine("--count: not a whole number: many", "--count", "many");
    }

    @Test
    void aWordThatIsNoneOfTheToolsExits2NamingTheWordsAccepted() {
        CommandLine line = line("--count", "2", "fast");
        Exited exited = assertThrows(Exited.class, () -> {
            while (line.next()) {
                switch (line.option()) {
                    case "slow", "steady" -> {
                    }
                    case "--count" -> line.intValue();
                    default -> line.unknown("slow, steady");
                }
            }
        });
        assertEquals(2, exited.status);
        assertEquals("tool: fast: not one of slow, steady; usage: tool --count N --names A,B",
                err.toString(StandardCharsets.UTF_8).strip());
    }

    private void assertBadLine(String named, String... args) {
        Exited exited = assertThrows(Exited.class, () -> parse(line(args)));
        assertEquals(2, exited.status);
        assertEquals("tool: " + named + "; usage: tool --count N --names A,B", err.toString(StandardCharsets.UTF_8).strip());
        assertEquals("", out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aSilentLineThrowsTheMessageAndPrintsNothing() {
        CommandLine line = CommandLine.silent("--count", "many");
        assertTrue(line.next());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, line::intValue);
        assertEquals("--count: not a whole number: many", e.getMessage());
        CommandLine unknown = CommandLine.silent("--colour");
        assertTrue(unknown.next());
        assertEquals("--colour: unknown option", assertThrows(IllegalArgumentException.class, unknown::unknown)
                .getMessage());
    }

    @Test
    void aSilentLineEndsAtHelpOrVersionForTheProgramToAnswer() {
        CommandLine help = CommandLine.silent("--count", "3", "-h", "--colour");
        assertTrue(help.next());
        assertEquals(3, help.intValue());
        assertFalse(help.next(), "the words after --help are not read");
        assertTrue(help.asksForHelp());
        assertFalse(help.asksForVersion());
        CommandLine version = CommandLine.silent("--version", "--colour");
        assertFalse(version.next());
        assertTrue(version.asksForVersion());
        CommandLine plain = CommandLine.silent("--count", "3");
        while (plain.next()) {
            assertEquals(3, plain.intValue());
        }
        assertFalse(plain.asksForHelp() || plain.asksForVersion());
    }
}
