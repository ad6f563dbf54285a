package io.rc10k.stubs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.stubs.internal.Delay;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class DelayTest {
    @ParameterizedTest
    @EnumSource(Delay.Distribution.class)
    void everyDistributionHasTheAskedMean(Delay.Distribution distribution) {
        Delay delay = new Delay(distribution, 500, Delay.DEFAULT_SIGMA);
        SplittableRandom random = new SplittableRandom(1);
        int draws = 100_000;
        double sum = 0;
        for (int i = 0; i < draws; i++) {
            long d = delay.sample(random);
            assertTrue(d >= 0 && d <= StubOptions.MAX_DELAY_MILLIS, distribution + " drew " + d);
            sum += d;
        }
        assertEquals(500, sum / draws, 10, distribution + " mean");
    }

    @ParameterizedTest
    @EnumSource(Delay.Distribution.class)
    void zeroMeanIsAlwaysZero(Delay.Distribution distribution) {
        assertEquals(0, new Delay(distribution, 0, 2.0).sample(new SplittableRandom(9)));
    }
}
