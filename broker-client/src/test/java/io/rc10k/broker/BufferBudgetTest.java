package io.rc10k.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.stubs.HostilePartner;
import io.rc10k.stubs.Misbehaviour;
import io.rc10k.stubs.PartnerStubsExtension;
import io.rc10k.stubs.StubOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The client-wide budget of response bytes in transit ({@link BrokerClient.Builder#maxBufferedBytes}):
 * 200 partners' calls that declare 64 KiB each and trickle it hold what they received (a first 8 KiB
 * buffer each), not what they declared; other partners' calls are answered meanwhile; a body that would
 * pass the budget ends its call MEMORY_BUDGET; everything is given back when the calls end.
 */
class BufferBudgetTest {
    private static final int TRICKLERS = 200;
    private static final long BUDGET = 4L << 20;
    private static final int FIRST_BUFFER = 8 * 1024;

    @RegisterExtension
    static final PartnerStubsExtension stubs = new PartnerStubsExtension(StubOptions.builder().build());

    private HostilePartner hostile;
    private BrokerClient broker;

    @BeforeEach
    void start() throws Exception {
        hostile = HostilePartner.builder().maxStallMillis(120_000).build().start();
        broker = BrokerClient.builder()
                .partner(Partner.builder("trickle", hostile.uri().toString()).maxConnections(TRICKLERS)
                        .callTimeout(Duration.ofMinutes(2)).build())
                .partner(Partner.builder("good", stubs.uri().toString()).maxResponseBytes(8L << 20).build())
                .maxBufferedBytes(BUDGET)
                .build();
        broker.start();
    }

    @AfterEach
    void stop() throws Exception {
        broker.stop();
        hostile.close();
    }

    @Test
    void tricklingPartnersHoldWhatTheySentNotWhatTheyDeclaredAndOthersAreStillAnswered() throws Exception {
        List<Exchange> tricklers = new ArrayList<>();
        for (int i = 0; i < TRICKLERS; i++) {
            tricklers.add(broker.send(Call.to("trickle")
                    .path(Misbehaviour.TRICKLE_BODY.token() + "?bytes=65536&every=100").build()));
        }
        // Each declared 64 KiB (12.5 MiB in all, three times the budget); each holds its first buffer.
        ExchangeTest.awaitCondition(() -> broker.bufferedBytes() == (long) TRICKLERS * FIRST_BUFFER,
                "buffered " + broker.bufferedBytes() + " bytes, expected " + TRICKLERS + " first buffers");
        assertEquals(TRICKLERS, hostile.requests(Misbehaviour.TRICKLE_BODY));

        for (int i = 0; i < 100; i++) {
            Outcome fine = broker.send(Call.to("good").path("stub?bytes=20000").build()).outcome().toCompletableFuture()
                    .get(60, TimeUnit.SECONDS);
            assertEquals(Outcome.Kind.OK, fine.kind(), fine.toString());
            assertEquals(20_000, fine.bodyLength());
        }
        assertTrue(broker.bufferedBytes() <= BUDGET, broker.bufferedBytes() + " bytes buffered");

        // 3 MiB more than the 2.4 MiB left: this call, not the tricklers, is refused.
        Outcome refused = broker.send(Call.to("good").path("stub?bytes=" + (3 << 20)).build()).outcome()
                .toCompletableFuture().get(60, TimeUnit.SECONDS);
        assertEquals(Outcome.Kind.MEMORY_BUDGET, refused.kind(), refused.toString());
        assertTrue(refused.failure().getMessage().contains("maxBufferedBytes"), refused.failure().getMessage());
        for (Exchange trickler : tricklers) {
            assertTrue(!trickler.isDone(), "a trickling call ended: " + trickler);
        }

        tricklers.forEach(Exchange::cancel);
        ExchangeTest.awaitCondition(() -> broker.bufferedBytes() == 0 && broker.exchangesInFlight() == 0,
                "after the cancels: buffered " + broker.bufferedBytes() + ", in flight " + broker.exchangesInFlight());
        Outcome whole = broker.send(Call.to("good").path("stub?bytes=" + (3 << 20)).build()).outcome()
                .toCompletableFuture().get(60, TimeUnit.SECONDS);
        assertEquals(Outcome.Kind.OK, whole.kind(), "with the budget free again: " + whole);
        assertEquals(0, broker.bufferedBytes());
    }
}
