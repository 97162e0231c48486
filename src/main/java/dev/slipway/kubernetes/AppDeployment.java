package dev.slipway.kubernetes;

import dev.slipway.runtime.InstanceType;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;

import java.time.Duration;
import java.util.Map;

/**
 * A deployment's Kubernetes Deployment: its image, one replica, the instance type's resources, and the
 * restricted Pod Security Standard (non-root, read-only root with an emptyDir {@code /tmp}, no
 * capabilities, seccomp RuntimeDefault, no service-account token). Env vars come from the Secret.
 */
final class AppDeployment {
    /** The image's user (see ImageBuilder): not root. */
    static final long APP_UID = 65532;

    private AppDeployment() {
    }

    static Deployment build(String namespace, Map<String, String> labels, String deploymentId, String image,
                            InstanceType type, Duration stopGrace, int replicas) {
        return build(namespace, labels, deploymentId, image, type, stopGrace, replicas, "", java.util.List.of());
    }

    /** @param volumes the project's volumes, each its claim ({@link Names#volume}) mounted read-write at its path */
    static Deployment build(String namespace, Map<String, String> labels, String deploymentId, String image,
                            InstanceType type, Duration stopGrace, int replicas, String projectId,
                            java.util.List<dev.slipway.runtime.Volume> volumes) {
        java.util.List<io.fabric8.kubernetes.api.model.VolumeMount> mounts = new java.util.ArrayList<>();
        java.util.List<io.fabric8.kubernetes.api.model.Volume> claims = new java.util.ArrayList<>();
        for (dev.slipway.runtime.Volume v : volumes) {
            String name = "vol-" + Names.dns(v.name());
            mounts.add(new io.fabric8.kubernetes.api.model.VolumeMountBuilder().withName(name).withMountPath(v.path()).build());
            claims.add(new io.fabric8.kubernetes.api.model.VolumeBuilder().withName(name)
                    .withNewPersistentVolumeClaim().withClaimName(Names.volume(projectId, v.name())).endPersistentVolumeClaim().build());
        }
        Quantity memory = new Quantity(type.memoryMb() + "Mi");
        Quantity cpu = new Quantity(type.cpuMillis() + "m");
        return new DeploymentBuilder()
                .withNewMetadata().withName(Names.deployment(deploymentId)).withNamespace(namespace).withLabels(labels).endMetadata()
                .withNewSpec()
                    .withReplicas(replicas)
                    .withRevisionHistoryLimit(1)
                    .withNewSelector().withMatchLabels(Names.selector(deploymentId)).endSelector()
                    .withNewTemplate()
                        .withNewMetadata().withLabels(labels).endMetadata()
                        .withNewSpec()
                            .withAutomountServiceAccountToken(false)
                            .withEnableServiceLinks(false)
                            .withTerminationGracePeriodSeconds(Math.max(1, stopGrace.toSeconds()))
                            .withNewSecurityContext()
                                .withRunAsNonRoot(true).withRunAsUser(APP_UID).withRunAsGroup(APP_UID).withFsGroup(APP_UID)
                                .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile()
                            .endSecurityContext()
                            .addNewContainer()
                                .withName("app")
                                .withImage(image)
                                .withImagePullPolicy("IfNotPresent")
                                .addNewPort().withName("http").withContainerPort(Names.APP_PORT).withProtocol("TCP").endPort()
                                .addNewEnv().withName("PORT").withValue(String.valueOf(Names.APP_PORT)).endEnv()
                                .addNewEnvFrom().withNewSecretRef().withName(Names.secret(deploymentId)).endSecretRef().endEnvFrom()
                                .withNewResources()
                                    .addToRequests("cpu", cpu).addToRequests("memory", memory)
                                    .addToLimits("cpu", cpu).addToLimits("memory", memory)
                                .endResources()
                                // "answers on $PORT", as the local runtime's check: any HTTP status counts there,
                                // which an httpGet probe (200-399 only) would not match
                                .withNewReadinessProbe()
                                    .withNewTcpSocket().withNewPort(Names.APP_PORT).endTcpSocket()
                                    .withPeriodSeconds(1).withFailureThreshold(3)
                                .endReadinessProbe()
                                .withNewSecurityContext()
                                    .withAllowPrivilegeEscalation(false)
                                    .withReadOnlyRootFilesystem(true)
                                    .withRunAsNonRoot(true)
                                    .withNewCapabilities().withDrop("ALL").endCapabilities()
                                    .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile()
                                .endSecurityContext()
                                .addNewVolumeMount().withName("tmp").withMountPath("/tmp").endVolumeMount()
                                .addAllToVolumeMounts(mounts)
                            .endContainer()
                            .addAllToVolumes(claims)
                            .addNewVolume().withName("tmp")
                                .withNewEmptyDir().withSizeLimit(new Quantity(type.scratchMb() + "Mi")).endEmptyDir()
                            .endVolume()
                        .endSpec()
                    .endTemplate()
                .endSpec()
                .build();
    }
}
