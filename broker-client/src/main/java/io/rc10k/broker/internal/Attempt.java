package io.rc10k.broker.internal;

import io.rc10k.broker.Outcome;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;

/**
 * One attempt of an exchange, as its {@link Wire} reports it: its own Table 1 events, its place in a hedged
 * exchange's race ({@link Hedges}), its body under the bounds ({@link BoundedBody}), and, as it ends, what it
 * gives back (the body's memory, its host's count, a hedge's admission) before its {@link AttemptRunner}
 * decides what the end means.
 *
 * <p>Threading: the wire's contract ({@link Wire.Events}): {@code onSent} may come on another thread than the
 * response events, which come one at a time, then {@code onComplete} once. {@link #supersede} and
 * {@link #abort} from any thread.</p>
 */
final class Attempt implements Wire.Events, Hedges.Racer {
    private final AttemptRunner runner;
    private final PartnerState state;
    /** Where this attempt went. */
    private final PartnerHosts.Host host;
    /** A hedge: admitted by the partner on its own, released when it ends. */
    final boolean hedge;
    private final ExchangeEvents.AttemptEvents events;
    private final BoundedBody body;
    /** Set before the attempt is published or started: its own events, and other threads, may abort it. */
    private Wire.Call call;
    /** Aborted because another attempt answered first. */
    private volatile boolean superseded;
    /** A connection carried the request: a failure now is a reset, no longer a failed connect. */
    private volatile boolean begun;

    Attempt(AttemptRunner runner, PartnerState state, PartnerHosts.Host host, boolean hedge,
            ExchangeEvents.AttemptEvents events) {
        this.runner = runner;
        this.state = state;
        this.host = host;
        this.hedge = hedge;
        this.events = events;
        this.body = new BoundedBody(state.partner(), state.buffers());
    }

    /** The call made for it, with it as the call's events: set before anything may abort it. */
    void carriedBy(Wire.Call made) {
        call = made;
    }

    boolean begun() {
        return begun;
    }

    @Override
    public void supersede() {
        superseded = true;
        call.abort(new Failures.CancelledException("another attempt answered first"));
    }

    @Override
    public void abort(Throwable cause) {
        call.abort(cause);
    }

    @Override
    public void onBegin() {
        begun = true;
        events.connectionEstablished();
    }

    @Override
    public void onSent() {
        events.sent();
    }

    @Override
    public void onHeaders(int status, HttpFields fields) {
        Hedges hedges = runner.hedges();
        if (hedges != null && !hedges.answer(this)) {
            return;
        }
        events.headersCompleted(status);
        Throwable refused = body.expect(status, runner.method(), fields.getLongField(HttpHeader.CONTENT_LENGTH));
        if (refused != null) {
            call.abort(refused);
        }
    }

    @Override
    public void onContent(ByteBuffer content) {
        Throwable refused = body.take(content);
        if (refused != null) {
            call.abort(refused);
        }
    }

    @Override
    public void onComplete(int status, HttpFields fields, Throwable failure, boolean kept) {
        body.release();
        if (!state.hosts().single()) {
            Outcome.Kind aborted = runner.aborted();
            Outcome.Kind kind = failure == null ? (status >= 400 ? Outcome.Kind.HTTP_ERROR : Outcome.Kind.OK)
                    : superseded ? Outcome.Kind.CANCELLED : aborted != null ? aborted
                    : Failures.classify(failure, begun);
            state.hosts().ended(host, kind, status);
        }
        Hedges hedges = runner.hedges();
        int left = hedges == null ? 0 : hedges.ended(this);
        if (hedge) {
            state.release();
        }
        // Superseded by an attempt that answered first, or late: the exchange has already ended.
        if (superseded || runner.exchangeDone()) {
            return;
        }
        if (failure == null) {
            int bytes = body.length();
            events.bodyCompleted(bytes);
            if (kept) {
                events.connectionIdle();
            }
            runner.answered(this, status, fields, body.bytes());
            return;
        }
        runner.failed(this, status, failure, left);
    }
}
