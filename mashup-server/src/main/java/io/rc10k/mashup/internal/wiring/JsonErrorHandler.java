package io.rc10k.mashup.internal.wiring;

import io.rc10k.mashup.Composite;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Answers what Jetty refuses before any mashup code runs — an ambiguous or control character in
 * the path, headers or a URI too large, bad encoding — with the same JSON error shape as the
 * mashup servlets, never HTML. A 4xx also says {@code Connection: close}: Jetty closes such a
 * connection, and a client told so will not reuse it for its next request.
 */
public final class JsonErrorHandler extends ErrorHandler {
    @Override
    protected void generateResponse(Request request, Response response, int code, String message, Throwable cause,
            Callback callback) {
        String error = switch (code) {
            case 400 -> "bad_request";
            case 404 -> "not_found";
            case 405 -> "method_not_allowed";
            case 414 -> "uri_too_long";
            case 431 -> "headers_too_large";
            default -> code >= 500 ? "server_error" : "http_" + code;
        };
        String detail = message == null || message.isBlank() ? HttpStatus.getMessage(code) : message;
        byte[] body = Composite.error(error, detail);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
        if (code >= 400 && code < 500) {
            response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE.asString());
        }
        response.write(true, ByteBuffer.wrap(body), callback);
    }
}
