package dev.slipway.server;

import dev.slipway.config.ServerConfig;
import dev.slipway.kubernetes.KubernetesSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The kubeconfig of the Kubernetes runtime is a key file too (the apps' TLS key is tested by WildcardTest, on a real start). */
class KeyFilesTest {

    @Test
    void aKubeconfigOthersMayReadStopsTheStartWithTheFix(@TempDir Path dir) throws Exception {
        Path kubeconfig = Files.writeString(dir.resolve("kubeconfig.yaml"), "apiVersion: v1\nkind: Config\n");
        Files.setPosixFilePermissions(kubeconfig, PosixFilePermissions.fromString("rw-r--r--"));
        ServerConfig kube = ServerConfig.builder(dir)
                .kubernetes(KubernetesSettings.LOCAL.withEnabled(true).withKubeconfig(kubeconfig.toString())).build();
        assertThatThrownBy(() -> KeyFiles.requireClosed(kube))
                .hasMessage("the kubeconfig " + kubeconfig + " is readable by other users (mode rw-r--r--); make it readable"
                        + " by its owner only: chmod 600 " + kubeconfig);
        // the local runtime never reads it
        ServerConfig local = ServerConfig.builder(dir).kubernetes(KubernetesSettings.LOCAL.withKubeconfig(kubeconfig.toString())).build();
        assertThatCode(() -> KeyFiles.requireClosed(local)).doesNotThrowAnyException();
        Files.setPosixFilePermissions(kubeconfig, PosixFilePermissions.fromString("rw-------"));
        assertThatCode(() -> KeyFiles.requireClosed(kube)).doesNotThrowAnyException();
    }
}
