package io.rc10k.mashup.internal.admission;

import io.rc10k.mashup.Composite;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Answers every method but {@code GET} and {@code HEAD} with 405, {@code Allow: GET, HEAD}, the JSON
 * error shape and {@code Connection: close}, on every connector and path, before anything else looks at
 * the request. The server
 * serves nothing else; left to the servlets, {@code TRACE} would echo the request's headers back
 * (cross-site tracing) and {@code OPTIONS} would list {@code TRACE} among the methods allowed. (A
 * {@code CONNECT} whose {@code Host} is not its target never gets here: Jetty answers it 400 itself.)
 *
 * <pre>{@code
 * Handler top = new AllowedMethods(new GracefulMashups(metrics, admission));
 * }</pre>
 */
public final class AllowedMethods extends Handler.Wrapper {
    public static final String ALLOW = "GET, HEAD";

    public AllowedMethods(Handler handler) {
        super(handler);
    }

    /** Whether the server serves {@code method}: {@code GET} or {@code HEAD}. */
    public static boolean isAllowed(String method) {
        return HttpMethod.GET.is(method) || HttpMethod.HEAD.is(method);
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        String method = request.getMethod();
        if (isAllowed(method)) {
            return super.handle(request, response, callback);
        }
        response.setStatus(405);
        response.getHeaders().put(HttpHeader.ALLOW, ALLOW);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        // Nothing useful follows on this connection: not the tunnel a CONNECT asked for, nor a body left unread.
        response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE.asString());
        // The method is the client's text, and the detail is no echo: a method Jetty does not know is not named.
        String named = HttpMethod.fromString(method) != null ? method + " is" : "this method is";
        response.write(true, ByteBuffer.wrap(Composite.error("method_not_allowed", named + " not served here "
                + "(allowed: " + ALLOW + ")")), callback);
        return true;
    }
}
