package io.rc10k.mashup;

import java.util.Locale;

/** How the server waits for partners; definitions, templates, composition and metrics are the same in all three. */
public enum Mode {
    /** {@code startAsync()} and the broker's FanOut: the inbound request holds no thread while it waits (Eq. 2). */
    ASYNC,
    /** A blocking servlet; each outbound call blocks a platform thread of its own (Eq. 1). */
    SYNC,
    /** The blocking code, with servlet dispatches and outbound calls on virtual threads (JDK 21 or newer). */
    VIRTUAL;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Mode parse(String text) {
        for (Mode mode : values()) {
            if (mode.label().equals(text)) {
                return mode;
            }
        }
        throw new IllegalArgumentException("--mode: \"" + text + "\" (accepted: async, sync, virtual)");
    }
}
