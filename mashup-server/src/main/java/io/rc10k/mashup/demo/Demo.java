package io.rc10k.mashup.demo;

import io.rc10k.broker.Caching;
import io.rc10k.broker.CallOptions;
import io.rc10k.broker.Hedging;
import io.rc10k.broker.Partner;
import io.rc10k.stubs.PartnerStubs;
import io.rc10k.stubs.StubOptions;
import io.rc10k.mashup.CallDefinition;
import io.rc10k.mashup.DefinitionException;
import io.rc10k.mashup.Definitions;
import io.rc10k.mashup.MashupDefinition;
import io.rc10k.mashup.ParameterDefinition;
import java.net.URI;
import java.time.Duration;
import java.util.List;

/**
 * The embedded demo: what the standalone jar serves when no definitions file is given. Its partners
 * are partner stubs started in the same process; its definitions are written in Java (the same can be
 * written in JSON). Only the command line ({@code Main}) uses this package, and only this package uses
 * the stubs: the server itself knows nothing of them.
 *
 * <pre>{@code
 * try (Demo demo = Demo.start()) {
 *     Server server = MashupServer.createServer(options, demo.definitions(), true);
 *     ...
 * }
 * }</pre>
 *
 * <ul>
 *   <li>{@code /mashup/travel?city=Paris} — weather, hotels and flights for a city;</li>
 *   <li>{@code /mashup/paper} — two partners answering after 0.5 s and 1 s (the paper's Fig. 4);</li>
 *   <li>{@code /mashup/flaky?city=Oslo} — weather answers, hotels stalls: a partial result at the 1 s deadline;</li>
 *   <li>{@code /mashup/trip?city=Lyon} — the weather is required and cached for 30 s, the hotels are
 *       looked up for the city the weather answer names (a chained call), the flights are hedged after 100 ms.</li>
 * </ul>
 */
public final class Demo implements AutoCloseable {
    private final PartnerStubs partners;

    private Demo(PartnerStubs partners) {
        this.partners = partners;
    }

    /** Starts the demo's partners: stubs on an ephemeral loopback port, stalls bounded at 10 s. */
    public static Demo start() throws Exception {
        return new Demo(PartnerStubs.start(StubOptions.builder().maxStallMillis(10_000).build()));
    }

    /** Where the demo's partners answer. */
    public URI partners() {
        return partners.uri();
    }

    /** The demo's definitions over its running partners. */
    public Definitions definitions() throws DefinitionException {
        return definitions(partners.uri());
    }

    /** Stops the partners. */
    @Override
    public void close() {
        partners.close();
    }

    /** The demo's definitions, with every partner at {@code stubs}. */
    public static Definitions definitions(URI stubs) throws DefinitionException {
        String base = stubs.toString();
        return Definitions.builder()
                .partner(Partner.builder("weather", base).build())
                .partner(Partner.builder("hotels", base).build())
                .partner(Partner.builder("flights", base).build())
                .partner(Partner.builder("partner1", base).maxConnections(4096).maxQueued(16_384).build())
                .partner(Partner.builder("partner2", base).maxConnections(4096).maxQueued(16_384).build())
                .mashup(MashupDefinition.builder("travel")
                        .deadline(Duration.ofSeconds(2))
                        .parameter(ParameterDefinition.required("city"))
                        .call("weather", "weather", "/weather?city={city}")
                        .call("hotels", "hotels", "/hotels?city={city}")
                        .call("flights", "flights", "/flights?city={city}")
                        .build())
                .mashup(MashupDefinition.builder("paper")
                        .deadline(Duration.ofSeconds(5))
                        .call("partner1", "partner1", "/stub?delay=500")
                        .call("partner2", "partner2", "/stub?delay=1000")
                        .build())
                .mashup(MashupDefinition.builder("trip")
                        .deadline(Duration.ofSeconds(2))
                        .parameter(ParameterDefinition.required("city"))
                        .call(new CallDefinition("weather", "weather", "/weather?city={city}", List.of(),
                                CallOptions.NONE.withRequired(true).withCaching(new Caching(Duration.ofSeconds(30)))))
                        .call("hotels", "hotels", "/hotels?city={weather.body.city}")
                        .call(new CallDefinition("flights", "flights", "/flights?city={city}", List.of(),
                                CallOptions.NONE.withHedging(new Hedging(Duration.ofMillis(100), 1))))
                        .build())
                .mashup(MashupDefinition.builder("flaky")
                        .deadline(Duration.ofSeconds(1))
                        .parameter(ParameterDefinition.optional("city", "Oslo"))
                        .call("weather", "weather", "/weather?city={city}")
                        .call("hotels", "hotels", "/hotels?city={city}&fault=stall")
                        .build())
                .build();
    }
}
