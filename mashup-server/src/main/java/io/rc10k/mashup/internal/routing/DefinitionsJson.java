package io.rc10k.mashup.internal.routing;

import static io.rc10k.mashup.internal.routing.JsonTree.Type.OBJECT;
import static io.rc10k.mashup.internal.routing.JsonTree.Type.STRING;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.rc10k.mashup.DefinitionException;
import io.rc10k.mashup.Definitions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Loads {@link Definitions} from JSON (format in docs/mashup-server.md, schema in docs/definitions.schema.json). Every
 * problem — a wrong type, an unknown or duplicate key, a bad value, a check of the whole (an unknown partner, a
 * template's parameters) — is reported at once, each with its line and column and the value as written; nothing is
 * built half-way. A problem that follows from another (the calls of a partner that is itself wrong) is not reported
 * again.
 *
 * <p>The fields of each kind of object are declared once ({@link Fields}): the top level's here, a partner's and those
 * of the objects inside it in {@link PartnerJson}, a mashup's, its parameters' and its calls' in {@link MashupJson}.
 * Adding a field is a line there and its entry in docs/definitions.schema.json, which {@code DefinitionsSchemaTest}
 * holds against {@link #kinds()}.
 */
public final class DefinitionsJson {
    private static final Fields<Definitions.Builder> DEFINITIONS = new Fields<Definitions.Builder>("definitions")
            // Where editors find the schema; the server has no use for it.
            .field("$schema", STRING, (d, v) -> { })
            .field("partners", OBJECT, (d, v) -> v.entries((name, partner) -> PartnerJson.read(d, name, partner)))
            .required("mashups", OBJECT, (d, v) -> v.entries((name, m) -> d.mashup(MashupJson.read(name, m))));

    private DefinitionsJson() {
    }

    /** The declaration of every kind of object in the file: the top level first, then partner, mashup and the rest. */
    public static List<Fields<?>> kinds() {
        List<Fields<?>> kinds = new ArrayList<>();
        kinds.add(DEFINITIONS);
        kinds.addAll(PartnerJson.kinds());
        kinds.addAll(MashupJson.kinds());
        return List.copyOf(kinds);
    }

    public static Definitions load(Path file) throws DefinitionException {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new DefinitionException(List.of(file + ": cannot be read (" + e + ")"));
        }
        return parse(text, file.toString());
    }

    /** @param source the file's name in messages: {@code source:line:column: path: what is wrong} */
    public static Definitions parse(String text, String source) throws DefinitionException {
        Problems problems = new Problems();
        JsonTree tree;
        try {
            tree = JsonTree.read(text, problems);
        } catch (JsonProcessingException e) {
            throw new DefinitionException(List.of(source + ": not valid JSON at line "
                    + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + " ("
                    + e.getOriginalMessage() + ")"));
        }
        JsonTree.Node root = tree.root();
        if (root == null || root.type() != OBJECT) {
            problems.add(root == null ? 1 : root.line(), root == null ? 1 : root.column(), "",
                    "the top level must be an object with \"partners\" and \"mashups\"");
            throw new DefinitionException(source, problems.inFileOrder());
        }
        Definitions.Builder builder = Definitions.builder();
        new Value(root, problems).read(DEFINITIONS, builder);
        try {
            Definitions definitions = builder.build();
            if (problems.count() == 0) {
                return definitions;
            }
        } catch (DefinitionException e) {
            e.problems().forEach(problem -> problems.later(problem, tree));
        }
        throw new DefinitionException(source, problems.inFileOrder());
    }
}
