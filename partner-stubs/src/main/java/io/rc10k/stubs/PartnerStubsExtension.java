package io.rc10k.stubs;

import java.net.URI;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * JUnit 5 extension around {@link PartnerStubs}: in a {@code static} field it serves the whole class,
 * in an instance field each test gets fresh stubs.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final PartnerStubsExtension stubs = new PartnerStubsExtension();
 *
 * @Test
 * void slowPartnerAnswersAfterItsDelay() {
 *     URI uri = stubs.uri().resolve("/stub?delay=200");
 *     ...
 * }
 * }</pre>
 *
 * JUnit is an optional dependency of this module ({@code requires static}): whoever registers the
 * extension runs JUnit already, hence the suppressed warning that its types are not re-exported.
 */
@SuppressWarnings("exports")
public final class PartnerStubsExtension implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback,
        AfterEachCallback {
    private final StubOptions options;
    private PartnerStubs stubs;
    private boolean perTest;

    public PartnerStubsExtension() {
        this(StubOptions.builder().build());
    }

    public PartnerStubsExtension(StubOptions options) {
        this.options = options;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        stubs = PartnerStubs.start(options);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        if (stubs == null) {
            perTest = true;
            stubs = PartnerStubs.start(options);
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (perTest) {
            close();
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        close();
    }

    private void close() {
        if (stubs != null) {
            stubs.close();
            stubs = null;
        }
    }

    public PartnerStubs stubs() {
        if (stubs == null) {
            throw new IllegalStateException("partner stubs are not running: register the extension with "
                    + "@RegisterExtension and use it inside a test");
        }
        return stubs;
    }

    public URI uri() {
        return stubs().uri();
    }

    public URI uri(int index) {
        return stubs().uri(index);
    }

    public int port() {
        return stubs().port();
    }

    public StubStats stats() {
        return stubs().stats();
    }

    public void resetStats() {
        stubs().resetStats();
    }
}
