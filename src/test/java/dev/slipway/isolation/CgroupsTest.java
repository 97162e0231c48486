package dev.slipway.isolation;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** A cell's group on this machine's cgroup filesystem (v1 or v2): its limits, its weight, and its removal. */
class CgroupsTest {
    @Test
    void aGroupCarriesItsLimitsAndWeighsAsItsCpuAndAllCellsWeighOneProcessPerCore() throws IOException {
        Cgroups cgroups = Cgroups.detect().orElseThrow(() -> new AssertionError("no writable cgroups (the tests run as root)"));
        String name = "test-" + UUID.randomUUID().toString().substring(0, 8);
        Cgroups.Group group = cgroups.create(name, new Limits(64 * Limits.MB, 250, 32, Limits.MB));
        try {
            assertThat(cgroups.existing()).contains(name);
            switch (cgroups) {
                case Cgroups.V1 v1 -> {
                    Path cpu = v1.cpu().resolve(Cgroups.PARENT);
                    assertThat(read(v1.memory().resolve(Cgroups.PARENT).resolve(name).resolve("memory.limit_in_bytes"))).isEqualTo(64 * Limits.MB);
                    assertThat(read(cpu.resolve(name).resolve("cpu.cfs_quota_us"))).isEqualTo(25_000);
                    assertThat(read(cpu.resolve(name).resolve("cpu.shares"))).isEqualTo(256);
                    assertThat(read(cpu.resolve("cpu.shares"))).isEqualTo(1024L * Cgroups.CORES);
                    assertThat(read(v1.pids().resolve(Cgroups.PARENT).resolve(name).resolve("pids.max"))).isEqualTo(32);
                }
                case Cgroups.V2 v2 -> {
                    Path parent = v2.root().resolve(Cgroups.PARENT);
                    assertThat(read(parent.resolve(name).resolve("memory.max"))).isEqualTo(64 * Limits.MB);
                    assertThat(Files.readString(parent.resolve(name).resolve("cpu.max")).strip()).isEqualTo("25000 100000");
                    assertThat(read(parent.resolve(name).resolve("cpu.weight"))).isEqualTo(25);
                    assertThat(read(parent.resolve("cpu.weight"))).isEqualTo(Math.min(10_000, 100L * Cgroups.CORES));
                    assertThat(read(parent.resolve(name).resolve("pids.max"))).isEqualTo(32);
                }
            }
        } finally {
            group.destroy();
        }
        assertThat(cgroups.existing()).doesNotContain(name);
    }

    private static long read(Path file) throws IOException {
        return Long.parseLong(Files.readString(file).strip());
    }
}
