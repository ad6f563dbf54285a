package io.rc10k.mashup.internal.admission;

import io.rc10k.mashup.internal.observability.SmallServlets;
import java.time.Duration;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.handler.QoSHandler;

/**
 * Sync mode's guard against starving its own pool. A sync servlet blocks a pool thread until its
 * partners answer, and the broker reads those answers on the same shared pool; were every pool
 * thread blocked in a servlet, the answers would wait in the pool's queue behind more requests, and
 * every request would end at its deadline. So at most {@link #concurrency} mashup requests run at
 * once; the rest wait suspended — holding no thread — in Jetty's {@link QoSHandler}, first come first
 * served, and are answered 503 if they wait longer than {@code maxWait}. The cap law follows:
 * throughput = min(N, concurrency) / S.
 */
public final class BlockingRequestLimit {
    private BlockingRequestLimit() {
    }

    /**
     * Requests that may block at once: the pool less the threads its acceptors and selectors hold
     * for good, less room for the client's I/O (an eighth of the pool, at least 4).
     */
    public static int concurrency(int maxThreads, int reservedThreads) {
        return Math.max(1, maxThreads - reservedThreads - Math.max(4, maxThreads / 8));
    }

    public static QoSHandler wrap(Handler handler, int concurrency, int maxWaiting, Duration maxWait) {
        QoSHandler qos = new QoSHandler(handler);
        qos.setMaxRequestCount(concurrency);
        qos.setMaxSuspendedRequestCount(maxWaiting);
        qos.setMaxSuspend(maxWait);
        qos.excludePath(SmallServlets.PATHS.toArray(new String[0]));
        return qos;
    }
}
