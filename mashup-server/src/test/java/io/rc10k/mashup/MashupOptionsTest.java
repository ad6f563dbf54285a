package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.rc10k.mashup.internal.wiring.ServerArguments;
import java.net.URI;
import org.junit.jupiter.api.Test;

/** The builder's defaults, its admin port that follows the port, and its one place of checks. */
class MashupOptionsTest {
    @Test
    void theBuilderUntouchedGivesTheDocumentedDefaults() {
        MashupOptions d = MashupOptions.builder().build();
        assertEquals(MashupOptions.DEFAULT_HOST, d.host());
        assertEquals(MashupOptions.DEFAULT_PORT, d.port());
        assertEquals(MashupOptions.DEFAULT_PORT + 1, d.adminPort());
        assertEquals(MashupOptions.DEFAULT_ADMIN_HOST, d.adminHost());
        assertEquals(Mode.ASYNC, d.mode());
        assertEquals(MashupOptions.DEFAULT_MAX_THREADS, d.maxThreads());
        assertEquals(0, d.maxInFlight());
        assertEquals(0, d.maxConnections());
        assertEquals(0, d.maxBufferedBytes());
        assertEquals(null, d.otlpEndpoint());
        assertEquals(-1, d.acceptors());
        assertEquals(-1, d.selectors());
        assertEquals(MashupOptions.DEFAULT_MIN_THREADS, d.minThreads());
        assertEquals(-1, d.reservedThreads());
        assertEquals(MashupOptions.DEFAULT_IDLE_TIMEOUT_MILLIS, d.idleTimeoutMillis());
        assertEquals(MashupOptions.DEFAULT_ACCEPT_QUEUE, d.acceptQueue());
        assertEquals(d.toString(), MashupOptions.defaults().toString());
    }

    @Test
    void anAdminPortNotSetFollowsThePortAndOneSetStaysWhereItWasPut() {
        assertEquals(9001, MashupOptions.builder().port(9000).build().adminPort());
        assertEquals(0, MashupOptions.builder().port(0).build().adminPort());
        assertEquals(8081, MashupOptions.builder().adminPort(8081).port(9000).build().adminPort());
        MashupOptions next = MashupOptions.builder().port(9000).build();
        assertEquals(0, next.toBuilder().port(0).build().adminPort(), "next to the port, it moves along");
        MashupOptions apart = MashupOptions.builder().port(9000).adminPort(7000).build();
        assertEquals(7000, apart.toBuilder().port(0).build().adminPort());
        assertEquals(-1, apart.toBuilder().adminPort(-1).port(0).build().adminPort());
    }

    @Test
    void toBuilderKeepsEveryValue() {
        MashupOptions options = MashupOptions.builder().host("0.0.0.0").port(9000).mode(Mode.SYNC).maxThreads(64)
                .maxInFlight(10).maxConnections(20).adminPort(7000).adminHost("0.0.0.0")
                .observabilityOnAdminOnly(true).otlpEndpoint(URI.create("http://collector:4318"))
                .maxBufferedBytes(1 << 20).acceptors(0).selectors(3).minThreads(16).reservedThreads(0)
                .idleTimeoutMillis(5_000).acceptQueue(128).build();
        assertEquals(options.toString(), options.toBuilder().build().toString());
        assertEquals("MashupOptions[host=0.0.0.0, port=9000, mode=sync, maxThreads=64, maxInFlight=10, "
                + "maxConnections=20, adminPort=7000, adminHost=0.0.0.0, observabilityOnAdminOnly=true, "
                + "otlpEndpoint=http://collector:4318, maxBufferedBytes=1048576, acceptors=0, selectors=3, minThreads=16, "
                + "reservedThreads=0, idleTimeoutMillis=5000, acceptQueue=128]",
                options.toString());
    }

    @Test
    void aValueOutOfRangeIsNamedWithWhatIsAccepted() {
        assertProblem("--port: 70000 (accepted: 0 to 65535)", MashupOptions.builder().port(70000));
        assertProblem("--mode: null (accepted: async, sync, virtual)", MashupOptions.builder().mode(null));
        assertProblem("--max-threads: 7 (accepted: at least 8)", MashupOptions.builder().maxThreads(7));
        assertProblem("--max-inflight: -1 (accepted: 0 for derived, or at least 1)",
                MashupOptions.builder().maxInFlight(-1));
        assertProblem("--max-connections: -1 (accepted: 0 for derived, or at least 1)",
                MashupOptions.builder().maxConnections(-1));
        assertProblem("--admin-port: -2 (accepted: -1 for none, 0 to 65535)", MashupOptions.builder().adminPort(-2));
        assertProblem("--admin-port: 65536 (accepted: -1 for none, 0 to 65535)", MashupOptions.builder().port(65_535));
        assertProblem("--admin-host: \" \" (accepted: an address to bind, e.g. 127.0.0.1 or 0.0.0.0)",
                MashupOptions.builder().adminHost(" "));
        assertProblem("--observability-on-admin-only needs an admin port, but --admin-port is -1 (accepted with it: "
                + "--admin-port 0 to 65535)", MashupOptions.builder().observabilityOnAdminOnly(true).adminPort(-1));
        assertProblem("--max-buffered-bytes: -1 (accepted: 0 for a quarter of the heap, or at least 1, with an "
                + "optional k, m or g)", MashupOptions.builder().maxBufferedBytes(-1));
        assertProblem("--acceptors: 65 (accepted: -1 for Jetty's default, 0 to 64)",
                MashupOptions.builder().acceptors(65));
        assertProblem("--selectors: 0 (accepted: -1 for Jetty's default, 1 to 256)",
                MashupOptions.builder().selectors(0));
        assertProblem("--min-threads: 0 (accepted: 1 to --max-threads, 200)", MashupOptions.builder().minThreads(0));
        assertProblem("--min-threads: 65 (accepted: 1 to --max-threads, 64)",
                MashupOptions.builder().maxThreads(64).minThreads(65));
        assertProblem("--reserved-threads: -2 (accepted: -1 for Jetty's choice, 0 for none, up to --max-threads, 200)",
                MashupOptions.builder().reservedThreads(-2));
        assertProblem("--idle-timeout: 0 (accepted: at least 1 ms)", MashupOptions.builder().idleTimeoutMillis(0));
        assertProblem("--accept-queue: 65536 (accepted: 1 to 65535; the kernel caps it at net.core.somaxconn)",
                MashupOptions.builder().acceptQueue(65_536));
        assertProblem("--otlp-endpoint: \"http://collector:4318?x=1\" (accepted: an http or https URL with a host "
                + "and no query, e.g. http://127.0.0.1:4318)",
                MashupOptions.builder().otlpEndpoint(URI.create("http://collector:4318?x=1")));
    }

    @Test
    void theCommandLineSetsTheBuilderInAnyOrder() {
        MashupOptions options = ServerArguments.parse("--admin-port", "7000", "--port", "9000", "--mode", "sync",
                "--max-buffered-bytes", "2m", "--min-threads", "4", "--reserved-threads", "0", "--idle-timeout", "1500",
                "--accept-queue", "512").options();
        assertEquals(9000, options.port());
        assertEquals(7000, options.adminPort());
        assertEquals(Mode.SYNC, options.mode());
        assertEquals(2L << 20, options.maxBufferedBytes());
        assertEquals(4, options.minThreads());
        assertEquals(0, options.reservedThreads());
        assertEquals(1_500, options.idleTimeoutMillis());
        assertEquals(512, options.acceptQueue());
        assertEquals(9001, ServerArguments.parse("--port", "9000").options().adminPort());
    }

    private static void assertProblem(String message, MashupOptions.Builder builder) {
        assertEquals(message, assertThrows(IllegalArgumentException.class, builder::build).getMessage());
    }
}
