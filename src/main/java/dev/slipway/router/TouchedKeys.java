package dev.slipway.router;

import java.util.Collection;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import java.util.function.BiPredicate;
import java.util.function.Function;

/**
 * The keys of one of a {@link RouteTable}'s maps that changes touched since they were last taken, once they are kept
 * ({@link #keep}). A key is added after its map was written and removed before its value is read, so a value read is at
 * least as new as the change that added the key; a change that comes meanwhile adds its key again, for the next take.
 */
final class TouchedKeys {
    private final Set<String> keys = ConcurrentHashMap.newKeySet();
    private volatile boolean kept;

    /** From now on the keys are kept until taken. */
    void keep() {
        kept = true;
    }

    /** After the map's entry at {@code key} was written. */
    void add(String key) {
        if (kept) keys.add(key);
    }

    void addAll(Collection<String> touched) {
        if (kept && !touched.isEmpty()) keys.addAll(touched);
    }

    /** Removes the map's entries that {@code test} picks, and adds their keys. */
    <V> void removeIf(Map<String, V> map, BiPredicate<String, V> test) {
        Set<String> removed = new HashSet<>();
        map.entrySet().removeIf(e -> {
            if (!test.test(e.getKey(), e.getValue())) return false;
            removed.add(e.getKey());
            return true;
        });
        addAll(removed);
    }

    /** Replaces each of the map's values with {@code change}'s, and adds the keys whose value changed. */
    <V> void replaceAll(Map<String, V> map, BiFunction<String, V, V> change) {
        Set<String> changed = new HashSet<>();
        map.replaceAll((k, v) -> {
            V now = change.apply(k, v);
            if (!now.equals(v)) changed.add(k);
            return now;
        });
        addAll(changed);
    }

    /** Takes every key touched: those with a value now go to {@code set} with it, the others to {@code gone}. */
    <V> void take(Function<String, V> now, Map<String, V> set, Set<String> gone) {
        for (Iterator<String> it = keys.iterator(); it.hasNext(); ) {
            String key = it.next();
            it.remove();
            V value = now.apply(key);
            if (value == null) gone.add(key);
            else set.put(key, value);
        }
    }

    void clear() {
        keys.clear();
    }
}
