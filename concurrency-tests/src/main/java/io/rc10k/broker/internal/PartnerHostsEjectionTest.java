package io.rc10k.broker.internal;

import io.rc10k.broker.Ejection;
import io.rc10k.broker.Partner;
import java.time.Duration;
import java.util.List;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * {@link PartnerHosts}: a partner's last host that is not ejected never is, so calls always have somewhere
 * to go. Each state: a partner on two hosts, ejected after one failure, for a cool-down longer than the test;
 * the actors are two loops ending a failed attempt on each host at once. Results: the hosts ejected, and the
 * attempts still counted out. Checked against an {@code eject} without its lock (the check of the others and
 * the ejection not atomic): both hosts ejected.
 */
@JCStressTest
@Description("PartnerHosts: both of a partner's two hosts fail at once; exactly one is ejected")
@Outcome(id = "1, 0", expect = Expect.ACCEPTABLE, desc = "one host ejected, the other keeps taking calls")
@Outcome(id = "2, .*", expect = Expect.FORBIDDEN, desc = "both ejected: the partner's calls had nowhere to go")
@Outcome(expect = Expect.FORBIDDEN, desc = "none ejected, or an attempt counted out after it ended")
@State
public class PartnerHostsEjectionTest {
    private static final Partner PARTNER = Partner.builder("two-hosts", "http://127.0.0.1:1")
            .hosts(List.of("http://127.0.0.1:1", "http://127.0.0.1:2"))
            .ejection(new Ejection(1, Duration.ofHours(1))).build();

    private final PartnerHosts hosts = new PartnerHosts(PARTNER);
    private final PartnerHosts.Host first = hosts.all().get(0);
    private final PartnerHosts.Host second = hosts.all().get(1);

    public PartnerHostsEjectionTest() {
        hosts.started(first);
        hosts.started(second);
    }

    @Actor
    public void firstHostFails() {
        hosts.ended(first, io.rc10k.broker.Outcome.Kind.CONNECT_FAILED, 0);
    }

    @Actor
    public void secondHostFails() {
        hosts.ended(second, io.rc10k.broker.Outcome.Kind.CONNECT_FAILED, 0);
    }

    @Arbiter
    public void arbiter(II_Result r) {
        r.r1 = (first.ejected() ? 1 : 0) + (second.ejected() ? 1 : 0);
        r.r2 = first.inFlight() + second.inFlight();
    }
}
