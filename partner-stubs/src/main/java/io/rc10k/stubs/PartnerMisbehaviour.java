package io.rc10k.stubs;

import io.rc10k.stubs.Misbehaviour.Expect;
import java.util.EnumSet;
import java.util.Set;

/**
 * A misbehaviour of a hostile partner, whichever protocol it breaks: a {@link Misbehaviour} of the HTTP/1.1
 * {@link HostilePartner} or an {@link H2Misbehaviour} of the {@link HostileH2Partner}. Each is served at
 * {@code GET /<token>} and says what a correct client should make of it, in the terms of {@link Expect}.
 *
 * <pre>{@code
 * static void assertAllowed(PartnerMisbehaviour m, Expect observed) {
 *     assertTrue(m.allows(observed), m + " (" + m.description() + ") gave " + observed);
 * }
 * }</pre>
 */
public sealed interface PartnerMisbehaviour permits Misbehaviour, H2Misbehaviour {
    /** The path segment that asks for it: {@code GET /chunk-size-invalid}, {@code GET /rst-stream}. */
    default String token() {
        return Expectation.of(this).token();
    }

    /** What a correct client should observe. */
    default Expect expected() {
        return Expectation.of(this).expected();
    }

    /**
     * Whether a correct client may show {@code observed}: the {@link #expected()} one, or for a few misbehaviours
     * one more that the RFCs also allow (a lenient parser; a client that bounds 1xx answers, a declared length or
     * the header list before the bytes break a rule; a deadline shorter than a trickle; an h2c client that left
     * push enabled and takes the promise, or takes a flood in its stride). The docs tables name the second where
     * there is one.
     */
    default boolean allows(Expect observed) {
        return Expectation.of(this).allowed().contains(observed);
    }

    /** Every observation it {@link #allows}, the expected one included. */
    default Set<Expect> allowed() {
        return EnumSet.copyOf(Expectation.of(this).allowed());
    }

    /** One line: what goes on the wire. */
    default String description() {
        return Expectation.of(this).description();
    }
}
