package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.mashup.internal.observability.TraceContext;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

/** Parsing the inbound {@code traceparent} and {@code tracestate}, and the headers made from them. */
class TraceContextTest {
    private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String PARENT_ID = "00f067aa0ba902b7";
    private static final Pattern TRACEPARENT = Pattern.compile("00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]");

    private static TraceContext parse(String traceparent) {
        return TraceContext.of(traceparent, "congo=t61rcWkgMzE");
    }

    @Test
    void aValidVersion00TraceparentIsContinuedWithItsTracestate() {
        TraceContext trace = parse("00-" + TRACE_ID + "-" + PARENT_ID + "-01");
        assertTrue(trace.continued());
        assertEquals(TRACE_ID, trace.traceId());
        assertEquals("01", trace.flags());
        assertEquals("congo=t61rcWkgMzE", trace.tracestate().getValue());
        assertEquals("tracestate", trace.tracestate().getName());
    }

    @Test
    void eachCallGetsItsOwnSpanUnderTheSameTrace() {
        TraceContext trace = parse("00-" + TRACE_ID + "-" + PARENT_ID + "-00");
        Set<String> spans = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            long span = TraceContext.newSpanId();
            String value = trace.traceparent(span).getValue();
            assertEquals("traceparent", trace.traceparent(span).getName());
            assertEquals("00-" + TRACE_ID + "-" + String.format("%016x", span) + "-00", value);
            spans.add(value.substring(36, 52));
        }
        assertEquals(100, spans.size(), "distinct span ids");
        assertFalse(spans.contains(PARENT_ID), "the caller's span is the parent, not one of ours");
        String response = trace.traceresponse();
        assertTrue(TRACEPARENT.matcher(response).matches(), response);
        assertTrue(response.startsWith("00-" + TRACE_ID + "-"), response);
        assertNotEquals(PARENT_ID, response.substring(36, 52));
    }

    @Test
    void onlyTheSampledFlagIsPassedOn() {
        // Level 1: every flag but "sampled" is reserved and sent as zero.
        assertEquals("01", parse("00-" + TRACE_ID + "-" + PARENT_ID + "-09").flags());
        assertEquals("01", parse("00-" + TRACE_ID + "-" + PARENT_ID + "-ff").flags());
        assertEquals("00", parse("00-" + TRACE_ID + "-" + PARENT_ID + "-02").flags());
        assertEquals("00", parse("00-" + TRACE_ID + "-" + PARENT_ID + "-00").flags());
    }

    @ParameterizedTest
    @NullAndEmptySource
    @ValueSource(strings = {
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01", // all-zero trace id
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", // all-zero parent id
        "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", // uppercase trace id
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00F067AA0BA902B7-01", // uppercase parent id
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0A", // uppercase flags
        "0A-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", // uppercase version
        "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", // version ff is forbidden
        "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01", // trace id of 31
        "00-4bf92f3577b34da6a3ce929d0e0e47360-00f067aa0ba902b7-01", // trace id of 33
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b-01", // parent id of 15
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b70-01", // parent id of 17
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1", // flags of 1
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-011", // flags of 3
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-", // version 00 has nothing after the flags
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-the-future-will-be-like",
        "00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01", // not dashes
        "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01", // not hex
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0g",
        " 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1",
        "0-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x", // a version of one digit
        "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01.future", // later version: no dash after flags
        "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0", // later version, shorter than 55
        "cc-00000000000000000000000000000000-00f067aa0ba902b7-01", // later version, all-zero trace id
    })
    void anInvalidTraceparentStartsANewTraceAndDropsTracestate(String traceparent) {
        TraceContext trace = parse(traceparent);
        assertFalse(trace.continued(), traceparent);
        assertNotEquals(TRACE_ID, trace.traceId());
        assertNull(trace.tracestate(), "tracestate belongs to the trace that was not continued");
        assertEquals("00", trace.flags());
    }

    @Test
    void aLaterVersionIsReadAsFarAsVersion00GoesAndSentAsVersion00() {
        for (String future : List.of("cc-" + TRACE_ID + "-" + PARENT_ID + "-01",
                "cc-" + TRACE_ID + "-" + PARENT_ID + "-01-what-the-future-will-be-like",
                "01-" + TRACE_ID + "-" + PARENT_ID + "-01-")) {
            TraceContext trace = parse(future);
            assertTrue(trace.continued(), future);
            assertEquals(TRACE_ID, trace.traceId());
            assertEquals("01", trace.flags());
            assertEquals("congo=t61rcWkgMzE", trace.tracestate().getValue());
            String sent = trace.traceparent(TraceContext.newSpanId()).getValue();
            assertTrue(TRACEPARENT.matcher(sent).matches(), sent);
        }
    }

    @Test
    void aNewTraceHasARandomValidIdNotSampledAndNoTracestate() {
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            TraceContext trace = TraceContext.of(null, "congo=t61rcWkgMzE");
            assertTrue(trace.traceId().matches("[0-9a-f]{32}") && !trace.traceId().matches("0+"), trace.traceId());
            assertEquals("00", trace.flags());
            assertNull(trace.tracestate());
            assertTrue(TRACEPARENT.matcher(trace.traceparent(TraceContext.newSpanId()).getValue()).matches());
            ids.add(trace.traceId());
        }
        assertEquals(100, ids.size(), "a new id per trace");
    }

    @Test
    void tracestateIsPassedOnUnchangedWithinTheLimits() {
        String valid = "00-" + TRACE_ID + "-" + PARENT_ID + "-01";
        String list = "rojo=00f067aa0ba902b7, congo=t61rcWkgMzE,,  , a@b/c*d_e-f= sp ace";
        assertEquals(list, TraceContext.of(valid, list).tracestate().getValue());
        List<String> members = new ArrayList<>();
        for (int i = 0; i < 32; i++) {
            members.add("k" + i + "=v");
        }
        assertEquals(String.join(",", members), TraceContext.of(valid, String.join(",", members)).tracestate().getValue());
    }

    @Test
    void tracestateOutsideTheLimitsIsDroppedButTheTraceIsContinued() {
        String valid = "00-" + TRACE_ID + "-" + PARENT_ID + "-01";
        List<String> members = new ArrayList<>();
        for (int i = 0; i < 33; i++) {
            members.add("k" + i + "=v");
        }
        for (String bad : new String[] {null, "", " , ,", String.join(",", members), "congo=caf\u00e9",
            "congo=a\u0001b"}) {
            TraceContext trace = TraceContext.of(valid, bad);
            assertNull(trace.tracestate(), String.valueOf(bad));
            assertTrue(trace.continued(), "a bad tracestate does not affect traceparent");
        }
    }

    @Test
    void aTracestateOver512CharactersLosesItsLongEntriesFirstThenEntriesFromTheEnd() {
        String valid = "00-" + TRACE_ID + "-" + PARENT_ID + "-01";
        String longEntry = "long=" + "x".repeat(200);
        List<String> members = new ArrayList<>();
        members.add("first=1");
        members.add(longEntry);
        for (int i = 0; i < 20; i++) {
            members.add("vendor" + i + "=" + "y".repeat(20));
        }
        String tracestate = String.join(",", members);
        assertTrue(tracestate.length() > 512 && tracestate.length() - longEntry.length() - 1 > 512);
        String kept = TraceContext.of(valid, tracestate).tracestate().getValue();
        assertTrue(kept.length() <= 512, kept.length() + ": " + kept);
        assertFalse(kept.contains("long="), kept);
        assertTrue(kept.startsWith("first=1,vendor0="), kept);
        assertTrue(tracestate.replace(longEntry + ",", "").startsWith(kept), "whole entries, in order: " + kept);
        assertFalse(kept.contains("vendor19="), "the last entries went: " + kept);
    }
}
