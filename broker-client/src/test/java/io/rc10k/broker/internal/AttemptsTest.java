package io.rc10k.broker.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.broker.Outcome.Kind;
import io.rc10k.broker.Partner;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link Attempts}, driven directly: the time is passed in, so no test waits for a deadline. */
class AttemptsTest {
    private static final long TIMEOUT = 1_000;
    private static final long T0 = 5_000;

    private static Attempts started(String method, int retries) {
        Attempts attempts = new Attempts(method, retries, TIMEOUT);
        attempts.start(T0);
        return attempts;
    }

    @Test
    void anAttemptIsCountedWhileTimeIsLeftAndRefusedAsTimeoutAfter() {
        Attempts attempts = started("GET", 2);
        assertNull(attempts.next(T0));
        assertNull(attempts.next(T0 + TIMEOUT - 1));
        assertEquals(2, attempts.count());
        assertEquals(1, attempts.remainingNanos(T0 + TIMEOUT - 1));
        assertEquals(Kind.TIMEOUT, attempts.next(T0 + TIMEOUT));
        assertEquals(2, attempts.count(), "a refused attempt is not counted");
    }

    @Test
    void theFirstAbortDecidesAndRefusesEveryLaterAttempt() {
        Attempts attempts = started("GET", 2);
        assertNull(attempts.aborted());
        assertTrue(attempts.abort(Kind.CANCELLED));
        assertFalse(attempts.abort(Kind.TIMEOUT), "a second abort changes nothing");
        assertEquals(Kind.CANCELLED, attempts.aborted());
        assertEquals(Kind.CANCELLED, attempts.next(T0), "the abort's kind, though time is left");
        assertEquals(0, attempts.count());
    }

    @Test
    void aFailedConnectIsRetriedAndAResetOnlyForAnIdempotentMethod() {
        Attempts get = started("GET", 1);
        get.next(T0);
        assertTrue(get.mayRetry(Kind.CONNECT_FAILED, T0, true));
        assertTrue(get.mayRetry(Kind.RESET, T0, true));
        Attempts post = started("POST", 1);
        post.next(T0);
        assertTrue(post.mayRetry(Kind.CONNECT_FAILED, T0, true), "nothing was sent: safe for any method");
        assertFalse(post.mayRetry(Kind.RESET, T0, true), "the partner may have acted on it");
        for (Kind kind : List.of(Kind.TIMEOUT, Kind.MALFORMED, Kind.TLS_FAILED, Kind.TOO_LARGE, Kind.HTTP_ERROR)) {
            assertFalse(get.mayRetry(kind, T0, true), kind.toString());
        }
    }

    @Test
    void noRetryPastTheRetriesAllowedAnAbortAStoppedWireOrTheDeadline() {
        Attempts attempts = started("GET", 1);
        attempts.next(T0);
        assertFalse(attempts.mayRetry(Kind.CONNECT_FAILED, T0, false), "the wire is stopping");
        assertFalse(attempts.mayRetry(Kind.CONNECT_FAILED, T0 + TIMEOUT, true), "no time left");
        attempts.next(T0);
        assertFalse(attempts.mayRetry(Kind.CONNECT_FAILED, T0, true), "its one retry went out");
        Attempts aborted = started("GET", 3);
        aborted.next(T0);
        aborted.abort(Kind.TIMEOUT);
        assertFalse(aborted.mayRetry(Kind.CONNECT_FAILED, T0, true));
    }

    @Test
    void theNextAttemptGoesToAnotherHostThanTheLastWhenThereIsOne() {
        Partner partner = Partner.builder("p", "http://a.invalid:1")
                .hosts(List.of("http://a.invalid:1", "http://b.invalid:1")).build();
        PartnerHosts hosts = new PartnerHosts(partner);
        Attempts attempts = started("GET", 3);
        PartnerHosts.Host first = attempts.nextHost(hosts);
        PartnerHosts.Host second = attempts.nextHost(hosts);
        PartnerHosts.Host third = attempts.nextHost(hosts);
        assertNotSame(first, second);
        assertSame(first, third);
        PartnerHosts single = new PartnerHosts(Partner.builder("q", "http://c.invalid:1").build());
        assertSame(attempts.nextHost(single), attempts.nextHost(single), "one host: every attempt goes there");
    }
}
