package io.rc10k.stubs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.stubs.RawHttp.End;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** Chaos mode: correct answers, and at the asked rate a misbehaviour drawn from a seeded generator. */
class HostileChaosTest {
    private static final int SAFETY_NET_MILLIS = 20_000;
    /** Misbehaviours that end the connection at once: a client reading to the end never waits for a cap. */
    private static final List<Misbehaviour> QUICK = List.of(Misbehaviour.CLOSE_AT_ACCEPT,
            Misbehaviour.RESET_AT_ACCEPT, Misbehaviour.CLOSE_MID_HEAD, Misbehaviour.RESET_MID_BODY,
            Misbehaviour.CLOSE_DELIMITED_BODY, Misbehaviour.CONTENT_LENGTH_SHORT_BODY,
            Misbehaviour.CHUNKED_CLOSE_BEFORE_LAST_CHUNK);

    @Test
    void chaosMisbehavesAtRoughlyTheAskedRatioAndTheSameSeedDrawsTheSame() throws Exception {
        int requests = 1_000;
        double p = 0.2;
        Map<Misbehaviour, Long> first = drawCounts(requests, p, 42);
        Map<Misbehaviour, Long> again = drawCounts(requests, p, 42);
        Map<Misbehaviour, Long> other = drawCounts(requests, p, 43);

        long misbehaved = first.values().stream().mapToLong(Long::longValue).sum();
        // Four standard deviations of a binomial(1000, 0.2): 4 * 12.6. The seed is fixed, so this never flakes.
        assertTrue(Math.abs(misbehaved - p * requests) <= 51, misbehaved + " of " + requests + " misbehaved");
        assertEquals(first, again, "the same seed drew otherwise");
        assertTrue(!first.equals(other), "another seed drew the same: " + first);
        for (Misbehaviour m : QUICK) {
            assertTrue(first.getOrDefault(m, 0L) > 0, m + " was never drawn: " + first);
        }
    }

    /** Sends {@code requests} chaos requests one after another; returns what the partner counted of each. */
    private static Map<Misbehaviour, Long> drawCounts(int requests, double p, long seed) throws IOException {
        try (HostilePartner partner = HostilePartner.builder().chaos(p, seed).chaosAmong(QUICK).build().start()) {
            int correct = 0;
            for (int i = 0; i < requests; i++) {
                RawHttp.Result result = RawHttp.get(partner.uri(), "/weather?city=Paris", SAFETY_NET_MILLIS);
                assertTrue(result.end() != End.TIMEOUT, "a quick misbehaviour did not end: " + result.text());
                correct += HostilePartnerTest.OK.equals(result.text()) ? 1 : 0;
            }
            assertEquals(correct, partner.okAnswers(), "correct answers seen on the wire");
            assertEquals(requests, partner.okAnswers() + partner.misbehaviours());
            assertEquals(0, partner.refusals());
            Map<Misbehaviour, Long> counts = new EnumMap<>(Misbehaviour.class);
            for (Misbehaviour m : Misbehaviour.values()) {
                long n = partner.requests(m);
                assertTrue(n == 0 || QUICK.contains(m), m + " is not among those asked for");
                if (n > 0) {
                    counts.put(m, n);
                }
            }
            return counts;
        }
    }

    @Test
    void everyMisbehaviourChaosDrawsEndsByItselfWithinTheStallCap() throws Exception {
        int requests = 96;
        ExecutorService clients = Executors.newFixedThreadPool(16);
        try (HostilePartner partner = HostilePartner.builder().chaos(1.0, 7).maxStallMillis(200).build().start()) {
            List<Future<End>> ends = new ArrayList<>();
            for (int i = 0; i < requests; i++) {
                ends.add(clients.submit(() -> drain(partner, "/anything")));
            }
            for (Future<End> end : ends) {
                assertTrue(end.get() != End.TIMEOUT, "a chaos misbehaviour outlived the stall cap");
            }
            assertEquals(requests, partner.misbehaviours());
            assertEquals(0, partner.okAnswers());
            long kinds = Arrays.stream(Misbehaviour.values()).filter(m -> partner.requests(m) > 0).count();
            assertTrue(kinds >= 20, "only " + kinds + " kinds drawn in " + requests);
        } finally {
            clients.shutdownNow();
        }
    }

    /** One request, its answer read and thrown away: how the connection ended. */
    private static End drain(HostilePartner partner, String path) throws IOException {
        try (Socket socket = HostilePartnerTest.connect(partner)) {
            HostilePartnerTest.send(socket, path, true);
            InputStream in = socket.getInputStream();
            byte[] buffer = new byte[64 * 1024];
            try {
                while (in.read(buffer) >= 0) {
                    // thrown away: only the end matters
                }
                return End.EOF;
            } catch (SocketTimeoutException e) {
                return End.TIMEOUT;
            } catch (SocketException e) {
                return End.RESET;
            }
        }
    }
}
