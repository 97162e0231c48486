package dev.slipway.kubernetes;

import dev.slipway.runtime.StartFailedException;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentConditionBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link PodHealth#awaitReady} against fabric8's mock API server in CRUD mode. Each test plays the kubelet,
 * the scheduler or the Deployment controller by writing pod and Deployment statuses, as a real cluster would,
 * while the wait runs on its own thread.
 */
@EnableKubernetesMockClient(crud = true, https = false)
class PodHealthTest {
    static final String NS = "slipway-apps";
    static final String ID = "dep_01";
    static final String NAME = "d-dep-01";
    static final String POD = NAME + "-7d9f8-abcde";
    static final String IMAGE = "127.0.0.1:5000/slipway/prj_1@sha256:0123";

    KubernetesMockServer server;
    KubernetesClient client;
    final List<String> log = new CopyOnWriteArrayList<>();

    @Test
    void kubeletMarksThePodReady_awaitReadyReturnsPromptly() throws Exception {
        createDeployment();
        Pod pod = createPod();
        // re-checks far apart: only the watch's event can end the wait promptly
        CompletableFuture<Void> wait = await(Duration.ofSeconds(60), Duration.ofSeconds(60));
        kubelet(pod, s -> s.withPhase("Running").withContainerStatuses(running(0, false)));
        Thread.sleep(200); // a running, not yet ready container: the wait goes on
        assertThat(wait).isNotDone();

        long readyAt = System.nanoTime();
        kubelet(pod, s -> s.withPhase("Running").withContainerStatuses(running(0, true))
                .addNewCondition().withType("Ready").withStatus("True").endCondition());
        wait.get(20, TimeUnit.SECONDS);
        long tookMs = (System.nanoTime() - readyAt) / 1_000_000;
        System.out.println("awaitReady returned " + tookMs + " ms after the pod was marked ready");
        assertThat(tookMs).isLessThan(10_000); // woken by the watch (a loaded machine takes a while), not the 60 s re-check
        assertThat(log).singleElement().asString().startsWith("INFO Kubernetes reports pod " + POD + " of " + NAME + " ready after ");
    }

    @Test
    void deploymentControllerCountsAReadyReplica_awaitReadyReturns() throws Exception {
        createDeployment();
        CompletableFuture<Void> wait = await(Duration.ofSeconds(30));
        Thread.sleep(100);
        client.apps().deployments().inNamespace(NS).withName(NAME).editStatus(d -> {
            d.setStatus(new DeploymentStatusBuilder().withReplicas(1).withReadyReplicas(1).build());
            return d;
        });
        wait.get(20, TimeUnit.SECONDS);
        assertThat(log).singleElement().asString().startsWith("INFO Kubernetes reports a replica of " + NAME + " ready after ");
    }

    @Test
    void kubeletOomKillsThePod_failsWithTheMemoryLimitInTheReason() throws Exception {
        createDeployment();
        Pod pod = createPod();
        CompletableFuture<Void> wait = await(Duration.ofSeconds(30));
        kubelet(pod, s -> s.withPhase("Running").withContainerStatuses(running(0, false)));
        kubelet(pod, s -> s.withPhase("Running").withContainerStatuses(new ContainerStatusBuilder(base(0))
                .withNewState().withNewTerminated().withExitCode(137).withReason("OOMKilled").withContainerID("containerd://c0")
                .withStartedAt("2026-11-23T10:00:00Z").withFinishedAt("2026-11-23T10:00:02Z")
                .withMessage("sk-live-secret-in-termination-log").endTerminated().endState().build()));
        String reason = failure(wait);
        assertThat(reason).isEqualTo("App was killed: Out of memory (limit 256Mi) (pod " + POD + ")");
        assertThat(log).containsExactly(
                "ERROR App was killed: Out of memory (limit 256Mi) in pod " + POD + " after 2.0 s; Kubernetes restarts it (restart 1)",
                "ERROR " + reason);
        assertThat(String.join("\n", log)).doesNotContain("sk-live"); // the app's termination message is never shown
    }

    @Test
    void kubeletRestartsACrashingApp_crashLoopBackOffIsLoggedWithTheExitCode_failsAfterThreeRestarts() throws Exception {
        createDeployment();
        Pod pod = createPod();
        CompletableFuture<Void> wait = await(Duration.ofSeconds(30));
        for (int restart = 0; restart < PodHealth.MAX_RESTARTS; restart++) {
            int n = restart;
            kubelet(pod, s -> s.withPhase("Running").withContainerStatuses(running(n, false)));
            kubelet(pod, s -> s.withPhase("Running").withContainerStatuses(new ContainerStatusBuilder(base(n + 1))
                    .withNewState().withNewWaiting().withReason("CrashLoopBackOff")
                    .withMessage("back-off " + (10 << n) + "s restarting failed container=app pod=" + POD).endWaiting().endState()
                    .withNewLastState().withNewTerminated().withExitCode(1).withReason("Error").withContainerID("containerd://c" + n)
                    .endTerminated().endLastState().build()));
            if (n < PodHealth.MAX_RESTARTS - 1) waitForLogLines(2 * (n + 1));
        }
        String reason = failure(wait);
        assertThat(reason).isEqualTo("App keeps crashing: it exited with code 1 (Error) and was restarted 3 times (pod " + POD + ")");
        assertThat(log).containsExactly(
                "ERROR App exited with code 1 (Error) in pod " + POD + "; Kubernetes restarts it (restart 1)",
                "WARNING Pod " + POD + " is in CrashLoopBackOff: the app has crashed 1 time, last exited with code 1 (Error);"
                        + " Kubernetes waits before restarting it (the deploy fails after 3)",
                "ERROR App exited with code 1 (Error) in pod " + POD + "; Kubernetes restarts it (restart 2)",
                "WARNING Pod " + POD + " is in CrashLoopBackOff: the app has crashed 2 times, last exited with code 1 (Error);"
                        + " Kubernetes waits before restarting it (the deploy fails after 3)",
                "ERROR App exited with code 1 (Error) in pod " + POD + "; Kubernetes restarts it (restart 3)",
                "WARNING Pod " + POD + " is in CrashLoopBackOff: the app has crashed 3 times, last exited with code 1 (Error);"
                        + " Kubernetes waits before restarting it (the deploy fails after 3)",
                "ERROR " + reason);
    }

    @Test
    void kubeletFailsToPullTheImage_warnsOnEachPull_failsOnTheThirdWithTheKubeletsMessage() throws Exception {
        createDeployment();
        Pod pod = createPod();
        CompletableFuture<Void> wait = await(Duration.ofSeconds(30));
        String message = "failed to pull and unpack image \"" + IMAGE + "\": not found";
        for (int attempt = 1; attempt <= PodHealth.PULL_FAILURES; attempt++) {
            kubelet(pod, s -> s.withPhase("Pending").withContainerStatuses(waiting("ErrImagePull", "rpc error: " + message)));
            if (attempt < PodHealth.PULL_FAILURES) {
                waitForLogLines(attempt);
                kubelet(pod, s -> s.withPhase("Pending").withContainerStatuses(waiting("ImagePullBackOff",
                        "Back-off pulling image \"" + IMAGE + "\"")));
                // the next pull's warning (below) comes only while it still waits; the log's three warnings prove it
                assertThat(wait).as("still retrying after pull " + attempt).isNotDone();
            }
        }
        String reason = failure(wait);
        assertThat(reason).isEqualTo("Image " + IMAGE + " could not be pulled (ErrImagePull): rpc error: " + message);
        assertThat(log).containsExactly(
                "WARNING Pulling image " + IMAGE + " failed (pod " + POD + ", attempt 1): rpc error: " + message,
                "WARNING Pulling image " + IMAGE + " failed (pod " + POD + ", attempt 2): rpc error: " + message,
                "WARNING Pulling image " + IMAGE + " failed (pod " + POD + ", attempt 3): rpc error: " + message,
                "ERROR " + reason);
    }

    @Test
    void schedulerFindsNoNodeForThePod_failsWithTheSchedulersMessage() throws Exception {
        createDeployment();
        Pod pod = createPod();
        CompletableFuture<Void> wait = await(Duration.ofSeconds(30));
        String message = "0/3 nodes are available: 3 Insufficient memory. preemption: 0/3 nodes are available: 3 No preemption victims found.";
        kubelet(pod, s -> s.withPhase("Pending").addNewCondition().withType("PodScheduled").withStatus("False")
                .withReason("Unschedulable").withMessage(message).endCondition());
        String reason = failure(wait);
        assertThat(reason).isEqualTo("Pod " + POD + " cannot be scheduled: " + message);
        assertThat(log).containsExactly("WARNING Pod " + POD + " cannot be scheduled: " + message, "ERROR " + reason);
    }

    @Test
    void kubeletCannotCreateTheContainerForAMissingSecret_failsWithTheConfigError() throws Exception {
        createDeployment();
        Pod pod = createPod();
        CompletableFuture<Void> wait = await(Duration.ofSeconds(30));
        kubelet(pod, s -> s.withPhase("Pending").withContainerStatuses(waiting("CreateContainerConfigError",
                "secret \"env-dep-01\" not found")));
        String reason = failure(wait);
        assertThat(reason).isEqualTo("Container app of pod " + POD
                + " could not be created (CreateContainerConfigError): secret \"env-dep-01\" not found");
        assertThat(log).containsExactly("ERROR " + reason);
    }

    @Test
    void deploymentControllerCannotCreatePods_failsWithItsMessage() throws Exception {
        createDeployment();
        CompletableFuture<Void> wait = await(Duration.ofSeconds(30));
        String message = "pods \"d-dep-01-7d9f8-\" is forbidden: exceeded quota: apps, requested: memory=256Mi, used: memory=4Gi, limited: memory=4Gi";
        client.apps().deployments().inNamespace(NS).withName(NAME).editStatus(d -> {
            d.setStatus(new DeploymentStatusBuilder().withConditions(new DeploymentConditionBuilder().withType("ReplicaFailure")
                    .withStatus("True").withReason("FailedCreate").withMessage(message).build()).build());
            return d;
        });
        assertThat(failure(wait)).isEqualTo("Kubernetes could not create the pods of " + NAME + ": " + message);
    }

    @Test
    void kubeletLeavesThePodCreating_failsAtTheTimeoutWithThePodsState() throws Exception {
        createDeployment();
        Pod pod = createPod();
        kubelet(pod, s -> s.withPhase("Pending").withContainerStatuses(waiting("ContainerCreating", null)));
        long start = System.nanoTime();
        CompletableFuture<Void> wait = await(Duration.ofMillis(1500));
        String reason = failure(wait);
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertThat(reason).isEqualTo(NAME + " did not become ready within 1.5 s (pod " + POD + ": Pending, ContainerCreating)");
        assertThat(tookMs).isBetween(1500L, 1500L + 2500L); // not the next re-check: at the deadline, with room for a loaded machine
        assertThat(log).containsExactly("ERROR " + reason);
    }

    @Test
    void noDeploymentAtAll_failsAtTheTimeoutSayingSo() throws Exception {
        assertThat(failure(await(Duration.ofMillis(300))))
                .isEqualTo(NAME + " did not become ready within 300 ms (the Deployment does not exist)");
    }

    @Test
    void apiServerRefusesToListDeployments_failsWithItsMessage() throws Exception {
        server.expect().get().withPath("/apis/apps/v1/namespaces/" + NS + "/deployments?fieldSelector=metadata.name%3D" + NAME
                + "&resourceVersion=0").andReturn(403, new StatusBuilder().withCode(403).withReason("Forbidden")
                .withMessage("deployments.apps is forbidden: User \"system:serviceaccount:slipway:slipway\" cannot list resource")
                .build()).always();
        long start = System.nanoTime();
        String reason = failure(await(Duration.ofSeconds(30)));
        System.out.println("awaitReady failed " + (System.nanoTime() - start) / 1_000_000 + " ms after a 403");
        assertThat(reason).isEqualTo("the Kubernetes API refused to show " + NAME
                + " and its pods: deployments.apps is forbidden: User \"system:serviceaccount:slipway:slipway\" cannot list resource");
    }

    @Test
    void failureReason_hostileKubeletMessagesBecomeOneCleanLine() {
        String hostile = "pull \u001b[31mfailed\u001b[0m\r\nfor image\u202e " + "x".repeat(1000);
        Pod pod = new PodBuilder(pod()).withStatus(new PodStatusBuilder().withPhase("Pending")
                .withContainerStatuses(waiting("InvalidImageName", hostile)).build()).build();
        String reason = PodHealth.failureReason(pod).orElseThrow();
        assertThat(reason).startsWith("Image " + IMAGE + " could not be pulled (InvalidImageName): pull failed for image\\u202e xxx")
                .endsWith("x…").doesNotContain("\u001b", "\r", "\n", "\u202e");
        assertThat(reason.length()).isLessThan(PodProblems.MAX_MESSAGE + 100);

        Pod fine = new PodBuilder(pod()).withStatus(new PodStatusBuilder().withPhase("Running")
                .withContainerStatuses(running(1, true)).build()).build();
        assertThat(PodHealth.failureReason(fine)).isEmpty();
        assertThat(PodHealth.failureReason(pod())).isEmpty();
    }

    // --- the cluster's side ---

    private void event(String name, String kind, String object, String uid, String reason, String message, int count) {
        client.v1().events().inNamespace(NS).resource(new EventBuilder()
                .withNewMetadata().withName(name).withNamespace(NS).endMetadata()
                .withType("Warning").withReason(reason).withMessage(message).withCount(count)
                .withLastTimestamp("2026-11-23T10:00:0" + count + "Z")
                .withNewInvolvedObject().withKind(kind).withName(object).withNamespace(NS).withUid(uid).endInvolvedObject()
                .build()).createOr(NonDeletingOperation::update);
    }

    @Test
    void kubeletAndSchedulerWriteWarningEvents_theyAreLogged_aVolumeThatNeverMountsFailsOnItsThirdAttempt() throws Exception {
        createDeployment();
        Pod pod = createPod();
        String uid = client.pods().inNamespace(NS).withName(POD).get().getMetadata().getUid();
        CompletableFuture<Void> wait = await(Duration.ofSeconds(60), Duration.ofSeconds(60));
        // another app's pod in the same namespace: its events are not this deployment's business
        event("other.1", "Pod", "d-dep-99-5f6d7-zzzzz", "uid-other", "FailedMount", "secret \"d-dep-99-env\" not found", 5);
        event(POD + ".1", "Pod", POD, uid, "FailedScheduling", "0/3 nodes are available: 3 Insufficient memory.\n preemption: 0/3 nodes", 1);
        event(POD + ".2", "Pod", POD, uid, "FailedMount",
                "MountVolume.SetUp failed for volume \"tmp\" : mkdir /var/lib/kubelet/pods/x: no space left on device", 1);
        waitForLogLines(2);
        assertThat(wait).isNotDone(); // one failed mount: the kubelet tries again
        kubelet(pod, s -> s.withPhase("Pending"));
        event(POD + ".2", "Pod", POD, uid, "FailedMount",
                "MountVolume.SetUp failed for volume \"tmp\" : mkdir /var/lib/kubelet/pods/x: no space left on device", 3);
        String reason = failure(wait);
        assertThat(reason).isEqualTo("Pod " + POD + " cannot start: its volumes could not be mounted (FailedMount, 3 times): "
                + "MountVolume.SetUp failed for volume \"tmp\" : mkdir /var/lib/kubelet/pods/x: no space left on device");
        assertThat(log).containsExactly(
                "WARNING Kubernetes event on pod " + POD + ": FailedScheduling: 0/3 nodes are available: 3 Insufficient memory. preemption: 0/3 nodes",
                "WARNING Kubernetes event on pod " + POD + ": FailedMount: MountVolume.SetUp failed for volume \"tmp\" : mkdir "
                        + "/var/lib/kubelet/pods/x: no space left on device",
                "ERROR " + reason);
    }

    @Test
    void theReplicaSetControllerCannotCreateThePod_itsFailedCreateEventFailsTheDeployAtOnce() throws Exception {
        createDeployment();
        CompletableFuture<Void> wait = await(Duration.ofSeconds(60), Duration.ofSeconds(60));
        event(NAME + "-7d9f8.1", "ReplicaSet", NAME + "-7d9f8", "uid-rs", "FailedCreate",
                "Error creating: pods \"" + NAME + "-7d9f8-abcde\" is forbidden: exceeded quota: apps, requested: memory=256Mi", 1);
        String reason = failure(wait);
        assertThat(reason).isEqualTo("Kubernetes could not create the pods of " + NAME + ": Error creating: pods \"" + NAME
                + "-7d9f8-abcde\" is forbidden: exceeded quota: apps, requested: memory=256Mi");
    }

    private CompletableFuture<Void> await(Duration timeout) {
        return await(timeout, PodHealth.RECHECK);
    }

    private CompletableFuture<Void> await(Duration timeout, Duration recheck) {
        return CompletableFuture.runAsync(() -> PodHealth.awaitReady(client, NS, NAME, timeout,
                (level, message) -> log.add(level.name() + " " + message), Clock.systemUTC(), recheck),
                r -> Thread.ofPlatform().name("await-" + NAME).start(r));
    }

    private static String failure(CompletableFuture<Void> wait) throws Exception {
        try {
            wait.get(20, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(StartFailedException.class);
            return e.getCause().getMessage();
        }
        throw new AssertionError("awaitReady returned");
    }

    private void waitForLogLines(int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (log.size() < n && System.nanoTime() < deadline) Thread.sleep(10);
        assertThat(log).hasSizeGreaterThanOrEqualTo(n);
    }

    private void createDeployment() {
        client.apps().deployments().inNamespace(NS).resource(new DeploymentBuilder()
                .withNewMetadata().withName(NAME).withLabels(labels()).endMetadata()
                .withNewSpec().withReplicas(1).withNewSelector().withMatchLabels(Map.of("slipway.dev/deployment", ID)).endSelector()
                .withNewTemplate().withNewMetadata().withLabels(labels()).endMetadata().withSpec(pod().getSpec()).endTemplate()
                .endSpec().build()).createOr(NonDeletingOperation::update);
    }

    private Pod createPod() {
        Pod created = client.pods().inNamespace(NS).resource(pod()).createOr(NonDeletingOperation::update);
        kubelet(created, s -> s.withPhase("Pending"));
        return created;
    }

    /** Writes the pod's status as the kubelet (or the scheduler) would. */
    private void kubelet(Pod pod, UnaryOperator<PodStatusBuilder> status) {
        PodStatus s = status.apply(new PodStatusBuilder()).build();
        client.pods().inNamespace(NS).withName(pod.getMetadata().getName()).editStatus(p -> {
            p.setStatus(s);
            return p;
        });
    }

    private static Pod pod() {
        return new PodBuilder().withNewMetadata().withName(POD).withNamespace(NS).withLabels(labels()).endMetadata()
                .withNewSpec().addNewContainer().withName("app").withImage(IMAGE)
                .withNewResources().withLimits(Map.of("memory", new Quantity("256Mi"))).endResources()
                .endContainer().endSpec().build();
    }

    private static Map<String, String> labels() {
        return Map.of("app.kubernetes.io/managed-by", "slipway", "slipway.dev/account", "acc_1",
                "slipway.dev/project", "prj_1", "slipway.dev/deployment", ID);
    }

    private static ContainerStatus base(int restarts) {
        return new ContainerStatusBuilder().withName("app").withImage(IMAGE).withRestartCount(restarts).withReady(false).build();
    }

    private static ContainerStatus running(int restarts, boolean ready) {
        return new ContainerStatusBuilder(base(restarts)).withReady(ready).withContainerID("containerd://c" + restarts)
                .withNewState().withNewRunning().withStartedAt("2026-11-23T10:00:00Z").endRunning().endState().build();
    }

    private static ContainerStatus waiting(String reason, String message) {
        return new ContainerStatusBuilder(base(0)).withNewState().withNewWaiting().withReason(reason).withMessage(message)
                .endWaiting().endState().build();
    }
}
