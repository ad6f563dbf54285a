package io.rc10k.stubs;

import io.rc10k.stubs.Misbehaviour.Expect;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * What one misbehaviour of a hostile partner is called, sends and should make a correct client observe: the data
 * behind each {@link PartnerMisbehaviour}, and how either kind is found by its token.
 *
 * @param token       the path segment that asks for it
 * @param expected    what a correct client should observe
 * @param allowed     every observation a correct client may show, {@code expected} included
 * @param description one line: what goes on the wire
 */
record Expectation(String token, Expect expected, Set<Expect> allowed, String description) {
    static Expectation of(String token, Expect expected, Expect alsoCorrect, String description) {
        return new Expectation(token, expected, Set.copyOf(EnumSet.of(expected, alsoCorrect)), description);
    }

    /** The data behind {@code m}, which its constructor gave. */
    static Expectation of(PartnerMisbehaviour m) {
        return m instanceof Misbehaviour http1 ? http1.expectation : ((H2Misbehaviour) m).expectation;
    }

    /** The misbehaviours of one kind by token, for their {@code find}. */
    static <E extends Enum<E> & PartnerMisbehaviour> Map<String, E> byToken(E[] values) {
        return Arrays.stream(values).collect(Collectors.toUnmodifiableMap(PartnerMisbehaviour::token,
                Function.identity()));
    }

    /** The one at {@code token}, or an error naming {@code kind} and listing the known tokens. */
    static <E extends Enum<E>> E of(Map<String, E> byToken, String token, String kind, String tokens) {
        return Optional.ofNullable(byToken.get(token)).orElseThrow(() -> new IllegalArgumentException(kind + ": \""
                + token + "\" is not one (accepted: " + tokens + ")"));
    }

    /** Every token of one kind, comma-separated, in declaration order. */
    static String tokens(PartnerMisbehaviour[] values) {
        return Arrays.stream(values).map(PartnerMisbehaviour::token).collect(Collectors.joining(", "));
    }
}
