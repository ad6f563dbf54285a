package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.broker.testing.BlockingCalls;
import io.rc10k.mashup.internal.modes.InlineMashups;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * BlockHound, as this module's tests run it: a blocking call in a mashup GET that Jetty's selector
 * serves itself (async mode's {@link InlineMashups}) is caught; the same call on a pool thread — a
 * request {@code InlineMashups} hands to the pool, or any request behind Jetty's default blocking
 * handling — is not. The check every other test here relies on.
 */
class EventThreadsTest {
    private static Server inline;
    private static Server blocking;
    private static HttpClient client;

    @BeforeAll
    static void start() throws Exception {
        inline = server(new InlineMashups(new Sleeper()));
        blocking = server(new Sleeper());
        client = new HttpClient();
        client.start();
    }

    private static Server server(Handler handler) throws Exception {
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server, 1, 1);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        server.setHandler(handler);
        server.start();
        return server;
    }

    @AfterAll
    static void stop() throws Exception {
        client.stop();
        inline.stop();
        blocking.stop();
    }

    @Test
    void aSleepInAMashupGetServedOnTheSelectorIsCaught() throws Exception {
        assertEquals(200, send(inline, HttpMethod.GET).getStatus());
        List<BlockingCalls.Seen> seen = BlockingCalls.take();
        assertEquals(1, seen.size(), seen.toString());
        assertTrue(seen.get(0).method().startsWith("java.lang.Thread.sleep"), seen.get(0).method());
        assertTrue(Arrays.stream(seen.get(0).stack().getStackTrace())
                .anyMatch(f -> f.getClassName().equals(InlineMashups.class.getName())), "the stack leads to the handler");
    }

    @Test
    void theSameSleepInARequestHandedToThePoolIsAllowed() throws Exception {
        // A body: InlineMashups hands the request to the pool, as it does anything that may block.
        assertEquals(200, send(inline, HttpMethod.POST).getStatus());
        assertEquals(List.of(), BlockingCalls.take());
    }

    @Test
    void theSameSleepBehindJettysBlockingHandlingIsAllowed() throws Exception {
        // Jetty hands a blocking handler's request over to the pool, or runs it where it was read once
        // another thread has taken over the selecting.
        assertEquals(200, send(blocking, HttpMethod.GET).getStatus());
        assertEquals(List.of(), BlockingCalls.take());
    }

    private static ContentResponse send(Server server, HttpMethod method) throws Exception {
        int port = ((ServerConnector) server.getConnectors()[0]).getLocalPort();
        var request = client.newRequest("http://127.0.0.1:" + port + "/mashup/sleep").method(method)
                .timeout(30, TimeUnit.SECONDS);
        if (method == HttpMethod.POST) {
            request.body(new StringRequestContent("x"));
        }
        return request.send();
    }

    /** Sleeps 1 ms, then answers 200: a handler that blocks. */
    private static final class Sleeper extends Handler.Abstract {
        @Override
        public boolean handle(Request request, Response response, Callback callback) throws Exception {
            Thread.sleep(1);
            response.setStatus(200);
            callback.succeeded();
            return true;
        }
    }
}
