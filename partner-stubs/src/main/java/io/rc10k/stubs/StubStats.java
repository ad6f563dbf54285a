package io.rc10k.stubs;

/**
 * A snapshot of what one stub process is doing, as served by {@code GET /stats}.
 *
 * @param served          requests whose handling has ended (answered, failed or faulted) since start or reset
 * @param inFlight        requests being handled now, including delayed and stalled ones
 * @param inFlightPeak    the most requests in flight at once since start or reset
 * @param connections     TCP connections open now, over every port
 * @param connectionsPeak the most TCP connections open at once since start or reset
 * @param liveThreads     live JVM threads now (the JVM's own count, as {@code jvm_threads_live_threads})
 * @param peakThreads     the most live JVM threads since start or reset
 * @param abandoned       requests the client gave up before their answer, since start or reset: an HTTP/2
 *                        stream it reset, or a connection Jetty found closed while the stub waited (over
 *                        HTTP/1.1 Jetty does not read while a request is handled, so a client that closes
 *                        is seen only when the stub writes)
 */
public record StubStats(long served, long inFlight, long inFlightPeak, long connections, long connectionsPeak,
        int liveThreads, int peakThreads, long abandoned) {

    public String toJson() {
        return "{\"served\":" + served + ",\"inFlight\":" + inFlight + ",\"inFlightPeak\":" + inFlightPeak
                + ",\"connections\":" + connections + ",\"connectionsPeak\":" + connectionsPeak
                + ",\"liveThreads\":" + liveThreads + ",\"peakThreads\":" + peakThreads + ",\"abandoned\":" + abandoned
                + "}";
    }
}
