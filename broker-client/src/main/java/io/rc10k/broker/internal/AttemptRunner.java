package io.rc10k.broker.internal;

import io.rc10k.broker.Hedging;
import io.rc10k.broker.Outcome;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the attempts of one admitted {@link RealExchange} on its {@link Wire}: launches the first, each retry
 * and each hedge, aborts those out when the exchange is aborted, and decides what an attempt's end means —
 * the exchange's answer, a failure dropped while another hedged attempt may still answer, a retry, or the
 * exchange's failure. The rules it applies live in {@link Attempts} (count, deadline, abort, retry) and
 * {@link Hedges} (the race); each attempt's own events in {@link Attempt}.
 *
 * <p>Threading: {@link #next()} on the thread that admitted the exchange; a retry on the thread that ended
 * the attempt before it; a hedge on the executor; {@link #abortOut} from any thread. Attempts end on their
 * wire's threads.</p>
 */
final class AttemptRunner {
    /** Under the exchange's name: operators and tests watch one logger for what an exchange logs. */
    private static final Logger LOG = LoggerFactory.getLogger(RealExchange.class);

    private final RealExchange exchange;
    private final Wire wire;
    private final Executor executor;
    private final PartnerState state;
    private final String partner;
    private final ExchangeEvents events;
    private final Attempts attempts;
    /** Null unless hedged: what an exchange without hedging never allocates. */
    private final Hedges hedges;
    private final HttpFields headers;
    /** The request's body, the same bytes on every attempt; null for none. */
    private final byte[] body;
    /** The attempt whose request is out, when not hedged. */
    private volatile Attempt current;

    /**
     * @param method  the exchange's method (an idempotent one is retried after a reset)
     * @param hedging null, or how the exchange is hedged
     */
    AttemptRunner(RealExchange exchange, Wire wire, Scheduler scheduler, Executor executor, PartnerState state,
            String method, HttpFields headers, byte[] body, ExchangeEvents events, Hedging hedging,
            long timeoutNanos) {
        this.exchange = exchange;
        this.wire = wire;
        this.executor = executor;
        this.state = state;
        this.partner = state.partner().name();
        this.headers = headers;
        this.body = body;
        this.events = events;
        this.attempts = new Attempts(method, state.partner().retries(), timeoutNanos);
        this.hedges = hedging == null ? null : new Hedges(hedging, scheduler, executor, this::hedge);
    }

    /** The exchange starts at {@code nowNanos}: the deadline its attempts share is set. */
    void start(long nowNanos) {
        attempts.start(nowNanos);
    }

    /** Records the exchange's abort: true for the first (it decides kind and cause), false after one. */
    boolean abort(Outcome.Kind kind) {
        return attempts.abort(kind);
    }

    /** The first abort's kind, or null. */
    Outcome.Kind aborted() {
        return attempts.aborted();
    }

    /** Null unless hedged. */
    Hedges hedges() {
        return hedges;
    }

    /** The next attempt, the first or a retry: launched if not aborted and time is left, else the exchange ends. */
    void next() {
        long now = System.nanoTime();
        Outcome.Kind refused = attempts.next(now);
        if (refused != null) {
            if (refused == Outcome.Kind.TIMEOUT) {
                events.expired();
            }
            exchange.attempted(Outcome.failure(partner, refused, 0, new TimeoutException(
                    "no time left for attempt " + (attempts.count() + 1)), exchange.elapsedNanos(), attempts.count()));
            return;
        }
        if (hedges != null) {
            hedges.startTimer();
        }
        launch(attempts.remainingNanos(now), false);
    }

    /** The hedge timer fired: one more attempt, if none has answered, time is left and the partner admits it. */
    private void hedge() {
        long remaining = attempts.remainingNanos(System.nanoTime());
        if (exchange.isDone() || attempts.aborted() != null || !hedges.mayHedge() || remaining <= 0
                || !state.tryAdmit()) {
            return;
        }
        int sent = hedges.hedgeSent();
        LOG.debug("hedging {} {}: attempt {} after {} ms", exchange.method(), exchange.uri(), sent + 1,
                hedges.afterMillis());
        launch(remaining, true);
    }

    private void launch(long remaining, boolean hedge) {
        PartnerHosts hosts = state.hosts();
        PartnerHosts.Host host = attempts.nextHost(hosts);
        hosts.started(host);
        Attempt attempt = new Attempt(this, state, host, hedge, events.attempt());
        Wire.Call call = wire.newCall(partner, exchange.method(), host.rebase(exchange.uri(), hosts.first()),
                headers, body, remaining, attempt);
        attempt.carriedBy(call);
        if (hedges != null) {
            hedges.launched(attempt);
        } else {
            current = attempt;
        }
        // An expire/cancel that came between the flag check and now must still abort this attempt.
        Outcome.Kind late = attempts.aborted();
        if (late != null) {
            call.abort(Failures.abortCause(late, exchange.elapsedNanos()));
        }
        call.start();
    }

    /** The exchange was aborted with {@code kind} ({@link #abort}): the attempts out end with its cause. */
    void abortOut(Outcome.Kind kind) {
        if (hedges == null) {
            Attempt attempt = current;
            if (attempt != null) {
                attempt.abort(Failures.abortCause(kind, exchange.elapsedNanos()));
            }
            return;
        }
        for (Hedges.Racer attempt : hedges.live()) {
            attempt.abort(Failures.abortCause(kind, exchange.elapsedNanos()));
        }
    }

    /** The exchange ended: no hedge goes out any more. */
    void ended() {
        if (hedges != null) {
            hedges.cancelTimer();
        }
        current = null;
    }

    boolean exchangeDone() {
        return exchange.isDone();
    }

    String method() {
        return exchange.method();
    }

    /** {@code attempt}'s whole response: the exchange's answer. */
    void answered(Attempt attempt, int status, HttpFields fields, byte[] whole) {
        exchange.answered(Outcome.response(partner, status, fields.get(HttpHeader.CONTENT_TYPE), whole,
                exchange.elapsedNanos(), attempts.count() + hedgesSent()).withHedges(hedgesSent(), attempt.hedge),
                fields);
    }

    /**
     * {@code attempt} failed: dropped while another attempt answered or may still answer (hedged), retried when
     * it may be, else the exchange's failure.
     *
     * @param left the hedged exchange's attempts still out ({@link Hedges#ended}); 0 when not hedged
     */
    void failed(Attempt attempt, int status, Throwable failure, int left) {
        if (hedges != null && hedges.dropsFailure(attempt, left, attempts)) {
            LOG.debug("{} {}: an attempt failed while another is out ({})", exchange.method(), exchange.uri(),
                    failure.toString());
            return;
        }
        Outcome.Kind aborted = attempts.aborted();
        Outcome.Kind kind = aborted != null ? aborted : Failures.classify(failure, attempt.begun());
        if (kind == Outcome.Kind.CONNECT_FAILED) {
            events.connectionFailed(failure);
        } else if (kind == Outcome.Kind.MALFORMED) {
            warn("partner {}: {} {} ended malformed, the connection closed and the call not retried: {}",
                    partner, exchange.method(), exchange.uri(), failure.getMessage());
        } else if (kind == Outcome.Kind.TLS_FAILED) {
            warn("partner {}: TLS handshake with {} failed, nothing sent and the call not retried: {}",
                    partner, exchange.uri().getAuthority(), Failures.tlsReason(failure));
        }
        if (attempts.mayRetry(kind, System.nanoTime(), wire.isRunning())) {
            LOG.debug("retrying {} {} after {} (attempt {})", exchange.method(), exchange.uri(), kind,
                    attempts.count());
            next();
            return;
        }
        if (kind == Outcome.Kind.TIMEOUT) {
            events.expired();
        }
        exchange.attempted(Outcome.failure(partner, kind, status, failure, exchange.elapsedNanos(),
                attempts.count() + hedgesSent()).withHedges(hedgesSent(), false));
    }

    private int hedgesSent() {
        return hedges == null ? 0 : hedges.sent();
    }

    /**
     * Logs on the pool, not here: this may be an event thread (a loop, a selector), which must not wait
     * for an appender, whatever logging backend the application chose.
     */
    private void warn(String format, Object... arguments) {
        try {
            executor.execute(() -> LOG.warn(format, arguments));
        } catch (RejectedExecutionException stopping) {
            LOG.warn(format, arguments);
        }
    }
}
