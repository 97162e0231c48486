package dev.slipway.runtime;

import dev.slipway.accounts.Tier;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What an app may use: enforced by the runtime (cgroups under the sandbox), not a label. The one table of
 * instance types; docs/operations.md and the OpenAPI document repeat it.
 *
 * @param memoryMb    memory limit; the app is killed past it ({@code Out of memory (limit … MB)})
 * @param cpuMillis   CPU share in thousandths of a core (a CFS quota)
 * @param processes   most processes and threads at once (a fork bomb stops here)
 * @param scratchMb   size of the private writable {@code /tmp}
 * @param lowestTier  the cheapest tier that may choose it
 */
public enum InstanceType {
    STARTER(256, 250, 64, 64, Tier.FREE),
    STANDARD(512, 500, 128, 128, Tier.PRO),
    PERFORMANCE(2048, 1000, 512, 512, Tier.TEAM);

    private final int memoryMb;
    private final int cpuMillis;
    private final int processes;
    private final int scratchMb;
    private final Tier lowestTier;

    InstanceType(int memoryMb, int cpuMillis, int processes, int scratchMb, Tier lowestTier) {
        this.memoryMb = memoryMb;
        this.cpuMillis = cpuMillis;
        this.processes = processes;
        this.scratchMb = scratchMb;
        this.lowestTier = lowestTier;
    }

    public int memoryMb() { return memoryMb; }
    public int cpuMillis() { return cpuMillis; }
    public int processes() { return processes; }
    public int scratchMb() { return scratchMb; }
    public long memoryBytes() { return memoryMb * 1024L * 1024L; }

    public String label() { return name().toLowerCase(Locale.ROOT); }

    /** The tier's default: free → starter, pro → standard, team → performance. */
    public static InstanceType defaultFor(Tier tier) {
        return switch (tier) {
            case FREE -> STARTER;
            case PRO -> STANDARD;
            case TEAM -> PERFORMANCE;
        };
    }

    /** True when an account of this tier may run this type. */
    public boolean allowedFor(Tier tier) {
        return tier.ordinal() >= lowestTier.ordinal();
    }

    public static List<String> labels() {
        return Arrays.stream(values()).map(InstanceType::label).toList();
    }

    public static List<String> labelsFor(Tier tier) {
        return Arrays.stream(values()).filter(t -> t.allowedFor(tier)).map(InstanceType::label).toList();
    }

    /** The type a stored deployment names; a label from before instance types existed ({@code local}) runs as starter. */
    public static InstanceType of(String label) {
        return byLabel(label).orElse(STARTER);
    }

    /** The type named by a label, if any (exact, lower-case). */
    public static Optional<InstanceType> byLabel(String label) {
        for (InstanceType t : values()) if (t.label().equals(label)) return Optional.of(t);
        return Optional.empty();
    }
}
