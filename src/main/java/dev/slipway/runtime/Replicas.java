package dev.slipway.runtime;

/**
 * A deployment's web process may run as several instances (replicas), each in a cell of its own. The first is keyed
 * by the deployment's id, as a single instance always was; replica {@code i > 0} by {@code <deployment id>.r<i>}: the
 * key of its process, its cell and its stored row, so that a runtime supervises, records and recovers each like any
 * other instance.
 */
public final class Replicas {
    /** The most replicas of one deployment. */
    public static final int MAX = 10;
    private static final String MARK = ".r";

    private Replicas() {}

    /** The instance key of replica {@code index} (0: the deployment's own id). */
    public static String key(String deploymentId, int index) {
        if (index < 0 || index >= MAX) throw new IllegalArgumentException("replica index out of range: " + index);
        return index == 0 ? deploymentId : deploymentId + MARK + index;
    }

    /** The deployment an instance key belongs to. */
    public static String deploymentOf(String key) {
        int at = key.lastIndexOf(MARK);
        return at > 0 && isIndex(key, at + MARK.length()) ? key.substring(0, at) : key;
    }

    /** The replica index of an instance key (0: the deployment's own instance). */
    public static int indexOf(String key) {
        int at = key.lastIndexOf(MARK);
        return at > 0 && isIndex(key, at + MARK.length()) ? Integer.parseInt(key.substring(at + MARK.length())) : 0;
    }

    private static boolean isIndex(String key, int from) {
        if (from >= key.length() || key.length() - from > 2) return false;
        for (int i = from; i < key.length(); i++) if (!Character.isDigit(key.charAt(i))) return false;
        return true;
    }
}
