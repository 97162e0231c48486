package dev.slipway.router;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.IntPredicate;

/**
 * Chooses the instance of a {@link Target.Pool} a request goes to: among those that serve and are not between a crash
 * and its restart (nor failing their health check), the one with the fewest requests under way, across the relay's
 * loops; a tie goes round, so that requests one after another spread too.
 */
final class Balancer {
    private final IntPredicate serving;
    private final IntPredicate restarting;
    /** Requests under way by port; only pools' members are counted. */
    private final AtomicIntegerArray outstanding = new AtomicIntegerArray(65_536);
    private final AtomicInteger turn = new AtomicInteger();

    Balancer(IntPredicate serving, IntPredicate restarting) {
        this.serving = serving;
        this.restarting = restarting;
    }

    /**
     * The member to send to, or null when none can take it.
     *
     * @param skip bit {@code i} set: member {@code i} is not chosen (it failed this request already)
     */
    Target.Upstream pick(Target.Pool pool, int skip) {
        List<Target.Upstream> members = pool.members();
        int n = members.size();
        int start = Math.floorMod(turn.getAndIncrement(), n);
        Target.Upstream best = null;
        int least = Integer.MAX_VALUE;
        for (int k = 0; k < n; k++) {
            int i = (start + k) % n;
            if ((skip & (1 << i)) != 0) continue;
            Target.Upstream u = members.get(i);
            int port = u.port();
            if (!serving.test(port) || restarting.test(port)) continue;
            int load = outstanding.get(port);
            if (load < least) {
                best = u;
                least = load;
            }
        }
        return best;
    }

    /** Whether any member of the pool still serves (restarting or not): false once all are gone. */
    boolean anyServing(Target.Pool pool) {
        for (Target.Upstream u : pool.members()) if (serving.test(u.port())) return true;
        return false;
    }

    /** The bit {@link #pick} skips {@code member} by. */
    static int bit(Target.Pool pool, Target.Upstream member) {
        int i = pool.members().indexOf(member);
        return i < 0 ? 0 : 1 << i;
    }

    void begin(int port) {
        outstanding.incrementAndGet(port);
    }

    void end(int port) {
        outstanding.decrementAndGet(port);
    }
}
