package io.rc10k.benchmarks.peers;

import io.rc10k.harness.CommandLine;
import java.net.URI;

/**
 * The command line every peer takes: {@code --port N --partner URI --calls C}. A bad one exits 2 with
 * a message naming the option; {@code --help} prints the usage and {@code --version} the version, exit 0
 * ({@link CommandLine}).
 *
 * @param port    the port to listen on, on 127.0.0.1 (0: any free one)
 * @param partner the URI every call GETs, e.g. {@code http://127.0.0.1:PORT/stub} ({@code https} for a peer
 *                that speaks TLS)
 * @param calls   C, the calls per inbound request
 */
public record PeerOptions(int port, URI partner, int calls) {
    public static PeerOptions parse(String name, String[] args) {
        return parse(name, args, false);
    }

    /** As {@link #parse(String, String[])}; {@code https}: the peer also calls {@code https} partners. */
    public static PeerOptions parse(String name, String[] args, boolean https) {
        String schemes = https ? "http or https" : "http";
        String usage = "--port N (0: any free port) --partner " + (https ? "http(s)" : "http")
                + "://HOST:PORT/PATH --calls C (1 to 64) --help --version";
        int port = 0;
        URI partner = null;
        int calls = 6;
        CommandLine line = new CommandLine(name, usage, args);
        while (line.next()) {
            switch (line.option()) {
                case "--port" -> port = line.intValue();
                case "--partner" -> partner = line.uri();
                case "--calls" -> calls = line.intValue();
                default -> line.unknown();
            }
        }
        if (port < 0 || port > 65_535) {
            throw line.fail("--port", port + " is not a port");
        }
        boolean scheme = partner != null && ("http".equals(partner.getScheme())
                || https && "https".equals(partner.getScheme()));
        if (!scheme || partner.getPort() < 1) {
            throw line.fail("--partner", partner == null ? "missing" : partner + " has no " + schemes
                    + " scheme and port");
        }
        if (calls < 1 || calls > 64) {
            throw line.fail("--calls", calls + " (accepted: 1 to 64)");
        }
        return new PeerOptions(port, partner, calls);
    }
}
