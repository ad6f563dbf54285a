package io.rc10k.mashup.internal.admission;

import io.rc10k.mashup.internal.observability.SmallServlets;
import java.time.Duration;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.handler.QoSHandler;

/**
 * Sync mode's guard against starving its own pool. A sync servlet blocks a pool thread until its
 * partners answer, and the broker reads those answers on the same shared pool; were every pool
 * thread blocked in a servlet, the answers would wait in the pool's queue behind more requests, and
 * every request would end at its deadline. So at most {@code Mode.blockingConcurrency} mashup requests run at
 * once; the rest wait suspended — holding no thread — in Jetty's {@link QoSHandler}, first come first
 * served, and are answered 503 if they wait longer than {@code maxWait}. The cap law follows:
 * throughput = min(N, concurrency) / S.
 */
public final class BlockingRequestLimit {
    private BlockingRequestLimit() {
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
