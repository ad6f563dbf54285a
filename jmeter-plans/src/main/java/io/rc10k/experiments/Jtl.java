package io.rc10k.experiments;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** JMeter's CSV results file (a {@code .jtl}): one {@link Sample} per request JMeter sent. */
final class Jtl {
    private Jtl() {
    }

    /**
     * One request as JMeter saw it.
     *
     * @param start   when it was sent, epoch ms
     * @param elapsed until the last byte of the response, ms
     * @param code    the HTTP status, or JMeter's text for a failure without one
     * @param success JMeter's verdict (2xx/3xx and no failure)
     * @param connect connect time, ms (0 when a kept-alive connection was reused)
     */
    record Sample(long start, long elapsed, String code, boolean success, long connect) {
        long end() {
            return start + elapsed;
        }

        boolean ok() {
            return success && "200".equals(code);
        }
    }

    static List<Sample> read(Path jtl) throws IOException {
        List<Sample> samples = new ArrayList<>();
        try (BufferedReader in = Files.newBufferedReader(jtl, StandardCharsets.UTF_8)) {
            String header = in.readLine();
            if (header == null) {
                return samples;
            }
            List<String> names = fields(header);
            int start = column(names, "timeStamp", jtl);
            int elapsed = column(names, "elapsed", jtl);
            int code = column(names, "responseCode", jtl);
            int success = column(names, "success", jtl);
            int connect = names.indexOf("Connect");
            String line;
            while ((line = in.readLine()) != null) {
                List<String> f = fields(line);
                if (f.size() < names.size()) {
                    continue; // a line cut short when JMeter was stopped
                }
                samples.add(new Sample(Long.parseLong(f.get(start)), Long.parseLong(f.get(elapsed)), f.get(code),
                        Boolean.parseBoolean(f.get(success)), connect < 0 ? 0 : Long.parseLong(f.get(connect))));
            }
        }
        return samples;
    }

    private static int column(List<String> names, String name, Path jtl) throws IOException {
        int i = names.indexOf(name);
        if (i < 0) {
            throw new IOException(jtl + ": no column " + name + " in " + names);
        }
        return i;
    }

    /** Splits one CSV line; JMeter quotes a field that holds a comma or a quote, and doubles quotes inside. */
    static List<String> fields(String line) {
        List<String> fields = new ArrayList<>();
        StringBuilder field = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quoted) {
                if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                    field.append('"');
                    i++;
                } else if (c == '"') {
                    quoted = false;
                } else {
                    field.append(c);
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == ',') {
                fields.add(field.toString());
                field.setLength(0);
            } else {
                field.append(c);
            }
        }
        fields.add(field.toString());
        return fields;
    }
}
