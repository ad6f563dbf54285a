package io.rc10k.benchmarks.peers;

import java.net.URI;

/**
 * The command line both peers take: {@code --port N --partner URI --calls C}. A bad one exits 2 with
 * a message naming the option; {@code --help} prints the usage and exits 0.
 *
 * @param port    the port to listen on, on 127.0.0.1 (0: any free one)
 * @param partner the URI every call GETs, e.g. {@code http://127.0.0.1:PORT/stub}
 * @param calls   C, the calls per inbound request
 */
public record PeerOptions(int port, URI partner, int calls) {
    public static PeerOptions parse(String name, String[] args) {
        String usage = name + " --port N (0: any free port) --partner http://HOST:PORT/PATH --calls C (1 to 64)";
        int port = 0;
        URI partner = null;
        int calls = 6;
        String option = "";
        try {
            for (int i = 0; i < args.length; i++) {
                option = args[i];
                switch (option) {
                    case "--port" -> port = Integer.parseInt(args[++i]);
                    case "--partner" -> partner = URI.create(args[++i]);
                    case "--calls" -> calls = Integer.parseInt(args[++i]);
                    case "--help" -> {
                        System.out.println("usage: " + usage);
                        System.exit(0);
                    }
                    default -> throw new IllegalArgumentException("unknown option");
                }
            }
            option = "--port";
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException(port + " is not a port");
            }
            option = "--partner";
            if (partner == null || !"http".equals(partner.getScheme()) || partner.getPort() < 1) {
                throw new IllegalArgumentException(partner == null ? "missing" : partner + " has no http scheme and port");
            }
            option = "--calls";
            if (calls < 1 || calls > 64) {
                throw new IllegalArgumentException(Integer.toString(calls));
            }
        } catch (RuntimeException e) {
            System.err.println(name + ": " + option + ": " + e.getMessage() + "; usage: " + usage);
            System.exit(2);
        }
        return new PeerOptions(port, partner, calls);
    }
}
