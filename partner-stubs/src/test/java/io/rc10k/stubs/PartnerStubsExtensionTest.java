package io.rc10k.stubs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/** An instance-field extension gives each test fresh stubs, on several ephemeral ports if asked. */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PartnerStubsExtensionTest {
    private static final List<URI> SEEN = new ArrayList<>();

    @RegisterExtension
    final PartnerStubsExtension stubs = new PartnerStubsExtension(
            StubOptions.builder().ports(List.of(0, 0, 0)).build());

    @Test
    @Order(1)
    void startsOneServerOnEveryAskedPort() throws Exception {
        assertEquals(3, stubs.stubs().portCount());
        assertNotEquals(stubs.uri(0), stubs.uri(1));
        for (int i = 0; i < 3; i++) {
            RawHttp.Result raw = RawHttp.get(stubs.uri(i), "/stub", 5_000);
            assertEquals("HTTP/1.1 200 OK", raw.head().lines().findFirst().orElseThrow());
        }
        SEEN.add(stubs.uri());
    }

    @Test
    @Order(2)
    void eachTestGetsFreshStubs() {
        assertEquals(0, stubs.stats().served());
        SEEN.add(stubs.uri());
        assertEquals(2, SEEN.size());
    }
}
