package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.rc10k.broker.Partner;
import io.rc10k.mashup.internal.routing.DefinitionsJson;
import io.rc10k.stubs.PartnerStubs;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.server.Server;
import org.junit.jupiter.api.Test;

/**
 * The Kubernetes manifests in {@code deploy/kubernetes/}, read into the Kubernetes API model (fabric8's) with
 * every field known to it — a misspelt or misplaced field fails here — and held to what the server does:
 * the probes' paths answered on the admin port, the grace period longer than the drain, the HPA's metric one
 * the server exports, the definitions valid.
 */
class DeployKubernetesTest {
    private static final Path DIR = Path.of("").toAbsolutePath().getParent().resolve("deploy/kubernetes");
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private static <T> T read(String file, Class<T> type) throws Exception {
        T resource = YAML.readValue(DIR.resolve(file).toFile(), type);
        List<String> unknown = new ArrayList<>();
        unknownFields(resource, file, unknown, java.util.Collections.newSetFromMap(new IdentityHashMap<>()));
        assertEquals(List.of(), unknown, file + ": fields the Kubernetes API does not know");
        return resource;
    }

    /** fabric8's model keeps fields it does not know in additionalProperties instead of failing: find them. */
    private static void unknownFields(Object value, String at, List<String> unknown, Set<Object> seen)
            throws Exception {
        if (value == null || !value.getClass().getName().startsWith("io.fabric8.") || !seen.add(value)) {
            if (value instanceof Collection<?> list) {
                int i = 0;
                for (Object element : list) {
                    unknownFields(element, at + "[" + i++ + "]", unknown, seen);
                }
            } else if (value instanceof Map<?, ?> map) {
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    unknownFields(e.getValue(), at + "." + e.getKey(), unknown, seen);
                }
            }
            return;
        }
        for (Method getter : value.getClass().getMethods()) {
            if (getter.getParameterCount() != 0 || Modifier.isStatic(getter.getModifiers())
                    || !getter.getName().startsWith("get") || getter.getDeclaringClass() == Object.class) {
                continue;
            }
            Object field = getter.invoke(value);
            if (getter.getName().equals("getAdditionalProperties")) {
                if (field instanceof Map<?, ?> extra && !extra.isEmpty()) {
                    unknown.add(at + ": " + extra.keySet());
                }
                continue;
            }
            unknownFields(field, at + "." + getter.getName().substring(3), unknown, seen);
        }
    }

    private static Container container(Deployment deployment) {
        PodSpec pod = deployment.getSpec().getTemplate().getSpec();
        assertEquals(1, pod.getContainers().size());
        return pod.getContainers().get(0);
    }

    private static int port(Container container, String name) {
        return container.getPorts().stream().filter(p -> name.equals(p.getName())).mapToInt(ContainerPort::getContainerPort)
                .findFirst().orElseThrow(() -> new AssertionError("no port named " + name));
    }

    @Test
    void everyManifestIsAKubernetesResourceWithOnlyFieldsItKnows() throws Exception {
        assertEquals("Deployment", read("deployment.yaml", Deployment.class).getKind());
        assertEquals("Service", read("service.yaml", Service.class).getKind());
        assertEquals("PodDisruptionBudget", read("poddisruptionbudget.yaml", PodDisruptionBudget.class).getKind());
        assertEquals("HorizontalPodAutoscaler",
                read("horizontalpodautoscaler.yaml", HorizontalPodAutoscaler.class).getKind());
        assertEquals("ConfigMap", read("configmap.yaml", ConfigMap.class).getKind());
        assertEquals("ConfigMap", read("prometheus-adapter-rules.yaml", ConfigMap.class).getKind());
        try (var files = Files.list(DIR)) {
            assertEquals(6, files.filter(f -> f.toString().endsWith(".yaml")).count(), "each manifest read above");
        }
    }

    @Test
    void theProbesAndTheServiceMeetTheServersPortsAndPaths() throws Exception {
        Deployment deployment = read("deployment.yaml", Deployment.class);
        Container container = container(deployment);
        assertEquals(MashupOptions.DEFAULT_PORT, port(container, "http"));
        int admin = port(container, "admin");
        assertEquals(MashupOptions.defaults().adminPort(), admin);
        Probe ready = container.getReadinessProbe();
        Probe live = container.getLivenessProbe();
        assertEquals("admin", ready.getHttpGet().getPort().getStrVal());
        assertEquals("admin", live.getHttpGet().getPort().getStrVal());
        assertEquals("admin", container.getStartupProbe().getHttpGet().getPort().getStrVal());
        Service service = read("service.yaml", Service.class);
        assertEquals(List.of("http"), service.getSpec().getPorts().stream().map(p -> p.getTargetPort().getStrVal())
                .toList(), "the Service exposes the main port only");
        assertEquals(deployment.getSpec().getSelector().getMatchLabels(), service.getSpec().getSelector());

        // The paths are answered on a real server's admin port, and the HPA's metric is one it exports.
        HorizontalPodAutoscaler hpa = read("horizontalpodautoscaler.yaml", HorizontalPodAutoscaler.class);
        String metric = hpa.getSpec().getMetrics().get(0).getPods().getMetric().getName();
        assertTrue(read("prometheus-adapter-rules.yaml", ConfigMap.class).getData().get("config.yaml")
                .contains("seriesQuery: '" + metric + "{"), "the adapter rule serves " + metric);
        try (PartnerStubs stubs = PartnerStubs.start();
                TestServer server = TestServer.start(Mode.ASYNC, TestServer.definitions(stubs))) {
            for (String path : List.of(ready.getHttpGet().getPath(), live.getHttpGet().getPath(),
                    container.getStartupProbe().getHttpGet().getPath())) {
                ContentResponse answer = server.client.GET(server.admin().resolve(path));
                assertEquals(200, answer.getStatus(), path + ": " + answer.getContentAsString());
            }
            assertTrue(server.metricsOnceAnswered().contains("\n" + metric + " "), "/metrics exports " + metric);
        }
    }

    @Test
    void theGracePeriodOutlastsThePreStopAndTheDrainForTheDeadlinesItClaims() throws Exception {
        Deployment deployment = read("deployment.yaml", Deployment.class);
        long graceMillis = deployment.getSpec().getTemplate().getSpec().getTerminationGracePeriodSeconds() * 1000;
        List<String> preStop = container(deployment).getLifecycle().getPreStop().getExec().getCommand();
        assertEquals("sleep", preStop.get(0));
        long preStopMillis = Long.parseLong(preStop.get(1)) * 1000;
        Matcher covers = Pattern.compile("covers mashup deadlines up to (\\d+) s in every mode")
                .matcher(Files.readString(DIR.resolve("deployment.yaml")));
        assertTrue(covers.find(), "the manifest says which deadlines its grace period covers");
        Duration deadline = Duration.ofSeconds(Long.parseLong(covers.group(1)));
        assertTrue(deadline.compareTo(MashupDefinition.DEFAULT_DEADLINE) >= 0, "at least the default deadline");
        Definitions definitions = Definitions.builder()
                .partner(Partner.builder("p", "http://127.0.0.1:9").build())
                .mashup(MashupDefinition.builder("m").deadline(deadline).call("c", "p", "/").build())
                .build();
        for (Mode mode : List.of(Mode.ASYNC, Mode.SYNC)) {
            Server server = MashupServer.createServer(MashupOptions.builder().mode(mode).port(0).build(), definitions);
            assertTrue(graceMillis > preStopMillis + server.getStopTimeout(), mode + ": a grace period of "
                    + graceMillis + " ms must exceed the preStop's " + preStopMillis + " ms and the drain's "
                    + server.getStopTimeout() + " ms");
        }
    }

    @Test
    void theDefinitionsAreValidAndMountedWhereTheServerReadsThem() throws Exception {
        ConfigMap map = read("configmap.yaml", ConfigMap.class);
        String json = map.getData().get("definitions.json");
        assertTrue(DefinitionsJson.parse(json, "configmap.yaml").mashups().containsKey("forecast"));
        Deployment deployment = read("deployment.yaml", Deployment.class);
        Container container = container(deployment);
        String mount = container.getVolumeMounts().stream().filter(m -> m.getName().equals("definitions"))
                .findFirst().orElseThrow().getMountPath();
        assertEquals(List.of("--config", mount + "/definitions.json"), container.getArgs());
        assertEquals(map.getMetadata().getName(), deployment.getSpec().getTemplate().getSpec().getVolumes().stream()
                .filter(v -> v.getName().equals("definitions")).findFirst().orElseThrow().getConfigMap().getName());
        // The heap is a share of the memory limit, leaving room for the rest of the JVM.
        String options = container.getEnv().stream().filter(e -> e.getName().equals("JAVA_TOOL_OPTIONS"))
                .findFirst().orElseThrow().getValue();
        Matcher percent = Pattern.compile("-XX:MaxRAMPercentage=(\\d+)").matcher(options);
        assertTrue(percent.find(), options);
        int share = Integer.parseInt(percent.group(1));
        assertTrue(share >= 50 && share <= 75, share + " %");
        assertTrue(container.getResources().getLimits().containsKey("memory"), "a memory limit to size the heap by");
    }
}
