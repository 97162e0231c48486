package dev.slipway.isolation;

/**
 * What one confined process tree may use.
 *
 * @param memoryBytes memory (and swap) limit; 0: none
 * @param cpuMillis   CPU in thousandths of a core; 0: none
 * @param processes   processes and threads at once; 0: none
 * @param scratchBytes size of the private {@code /tmp}
 */
public record Limits(long memoryBytes, int cpuMillis, int processes, long scratchBytes) {
    public static final long MB = 1024L * 1024L;

    public String memoryLabel() {
        return memoryBytes % (1024 * MB) == 0 && memoryBytes >= 1024 * MB
                ? (memoryBytes / (1024 * MB)) + " GB" : (memoryBytes / MB) + " MB";
    }
}
