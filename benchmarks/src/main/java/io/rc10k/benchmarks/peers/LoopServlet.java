package io.rc10k.benchmarks.peers;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The {@link LoopFanOut} fan-out behind a Jetty ee11 async servlet, as the mashup server answers: {@code startAsync()},
 * the calls on the client's loops, the composite written with Servlet non-blocking output from the
 * loop that completed the last part, then {@code complete()}. No routing, checks, metrics or trace
 * context: what the servlet layer alone adds to the loop-peer.
 */
final class LoopServlet extends HttpServlet {
    private final transient LoopClient client;
    private final int calls;

    LoopServlet(LoopClient client, int calls) {
        this.client = client;
        this.calls = calls;
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        long start = System.nanoTime();
        AsyncContext async = request.startAsync();
        async.setTimeout(0);
        ServletOutputStream out = response.getOutputStream();
        // Bit 1: the output is writable; bit 2: every part is in. Whichever comes second writes.
        AtomicInteger events = new AtomicInteger();
        AtomicBoolean written = new AtomicBoolean();
        byte[][][] composite = new byte[1][][];
        long[][] times = new long[1][];
        boolean[] failed = {false};
        Runnable write = () -> {
            written.set(true);
            try {
                if (failed[0]) {
                    response.setStatus(502);
                    response.setHeader("Mashup-Complete", "false");
                    response.setContentLength(0);
                    async.complete();
                    return;
                }
                byte[] json = CorePeer.composite(start, composite[0], times[0]);
                response.setStatus(200);
                response.setContentType("application/json");
                response.setHeader("Mashup-Complete", "true");
                response.setContentLength(json.length);
                out.write(json);
                if (out.isReady()) {
                    async.complete();
                }
            } catch (IOException e) {
                async.complete();
            }
        };
        out.setWriteListener(new WriteListener() {
            @Override
            public void onWritePossible() {
                if (written.get()) {
                    async.complete();
                } else if ((events.getAndAdd(1) & 2) != 0) {
                    write.run();
                }
            }

            @Override
            public void onError(Throwable failure) {
                async.complete();
            }
        });
        LoopFanOut.fanOut(client, calls, start, (bodies, elapsed, anyFailed) -> {
            composite[0] = bodies;
            times[0] = elapsed;
            failed[0] = anyFailed;
            if ((events.getAndAdd(2) & 1) != 0) {
                write.run();
            }
        });
    }
}

