package io.rc10k.broker.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.rc10k.broker.Partner;
import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link CallUris}: a call's path stays under its partner's base URI, and a path that passed is resolved once. */
class CallUrisTest {
    @Test
    void callsCannotLeaveThePartnersBaseUri() {
        Partner partner = Partner.builder("p", "http://127.0.0.1:9/api").build();
        assertEquals("http://127.0.0.1:9/api/x?q=1", CallUris.resolve(partner, "x?q=1").toString());
        assertEquals("http://127.0.0.1:9/api/x", CallUris.resolve(partner, "/x").toString());
        for (String hostile : List.of("http://evil.example/x", "//evil.example/x", "../x", "a/../../x",
                "x y", "https:x", "%2e%2e/x", ".%2E/x", "..;/x", "a%2F..%2F..%2Fx", "..%5cx", "a\\b",
                "a/%2E%2e", "a/.%2e/b", "a/b;c", "./x", "a/.", "x?y#z w", "a/%2fb")) {
            assertThrows(IllegalArgumentException.class, () -> CallUris.resolve(partner, hostile), hostile);
        }
    }

    /** Dots inside segments, empty segments and encoded characters are not refused: such calls resolve as usual. */
    @Test
    void ordinaryCallsPassTheSegmentChecks() throws Exception {
        for (String base : List.of("http://127.0.0.1:9", "http://127.0.0.1:9/api", "http://127.0.0.1:9/a/b/")) {
            Partner partner = Partner.builder("p", base).build();
            for (String call : List.of("x", "/x", "x/y/z", "x?q=1&r=%20s", "x/?q", "?q=1", "x#frag", "x%20y/z",
                    "a.b/c..d/.e", "a//b", "%7Euser/x", "x?q=a/../b", "x?q=:", "x/a:b", "")) {
                String relative = call.startsWith("/") ? call.substring(1) : call;
                URI general = partner.baseUri().resolve(new URI(relative));
                assertEquals(general, CallUris.resolve(partner, call), base + " + " + call);
            }
        }
    }

    /** A path resolved again is checked once; a refused path is refused every time; many paths stay right. */
    @Test
    void aPathResolvedAgainIsTakenFromMemoryAndARefusalIsNeverRemembered() {
        PartnerState state = new PartnerState(Partner.builder("p", "http://127.0.0.1:9/api").build(),
                new BufferBudget(1 << 20));
        URI first = CallUris.resolve(state, "x?q=1");
        URI again = CallUris.resolve(state, "x?q=1");
        assertEquals(URI.create("http://127.0.0.1:9/api/x?q=1"), first);
        assertSame(first, again, "the second call took the first one's resolution");
        for (int i = 0; i < 3; i++) {
            assertThrows(IllegalArgumentException.class, () -> CallUris.resolve(state, "../x"));
        }
        for (int i = 0; i < 2_000; i++) {
            String path = "v" + i + "/w?q=" + i;
            assertEquals(URI.create("http://127.0.0.1:9/api/" + path), CallUris.resolve(state, path), path);
        }
    }
}
