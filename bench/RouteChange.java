// What one route change costs (a rollback's switch: the server tells its edge process, and returns once the edge serves
// it) on a small install and a large one, side by side: two real edge processes, one per install, changes interleaved in
// rounds. Prints each size's median and p90 per change and the large ÷ small ratio: a change should cost the same
// whatever else the install serves. Then the server's CPU while nothing changes, for ten seconds. Usage:
//   java -cp target/slipway.jar bench/RouteChange.java [SMALL_PROJECTS] [LARGE_PROJECTS] [CHANGES] [ROUNDS]
// Each project has a production route and a deployment route, and every tenth a custom domain.
import dev.slipway.edge.EdgeLink;
import dev.slipway.router.RecentRequests;
import dev.slipway.router.RouteTable;
import dev.slipway.router.Target;
import dev.slipway.router.Waker;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

public class RouteChange {
    record Install(int projects, RouteTable routes, EdgeLink edge, List<Long> nanos, long[] made) {}

    public static void main(String[] args) throws Exception {
        int small = args.length > 0 ? Integer.parseInt(args[0]) : 50;
        int large = args.length > 1 ? Integer.parseInt(args[1]) : 5000;
        int changes = args.length > 2 ? Integer.parseInt(args[2]) : 200;
        int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 5;
        List<Install> installs = List.of(open(small), open(large));
        try {
            for (Install i : installs) change(i, changes, false); // warm-up: the JITs of both processes
            for (int r = 0; r < rounds; r++) {
                for (Install i : installs) change(i, changes, true);
            }
            double[] medians = new double[2];
            for (int k = 0; k < 2; k++) {
                Install i = installs.get(k);
                long[] sorted = i.nanos().stream().mapToLong(Long::longValue).sorted().toArray();
                medians[k] = sorted[sorted.length / 2] / 1e6;
                System.out.printf("%6d projects (%6d routes): median %.3f ms, p90 %.3f ms per change (%d changes)%n", i.projects(),
                        routes(i.projects()), medians[k], sorted[sorted.length * 9 / 10] / 1e6, sorted.length);
            }
            System.out.printf("large ÷ small: %.2f×%n", medians[1] / medians[0]);
            // with nothing changing, the server still checks the table four times a second (which app ports serve)
            var os = (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
            long cpu0 = os.getProcessCpuTime();
            long t0 = System.nanoTime();
            Thread.sleep(10_000);
            System.out.printf("idle, both installs: %.1f ms of CPU per second%n",
                    (os.getProcessCpuTime() - cpu0) / 1e6 / ((System.nanoTime() - t0) / 1e9));
        } finally {
            for (Install i : installs) i.edge().close();
        }
    }

    static int routes(int projects) {
        return projects * 2 + projects / 10;
    }

    static Install open(int projects) throws Exception {
        Path dir = Files.createTempDirectory("route-change-");
        RouteTable routes = new RouteTable("apps.test");
        EdgeLink edge = EdgeLink.open(new EdgeLink.Spec(dir, "127.0.0.1", 0, "apps.test", null));
        edge.serve(routes, port -> true, port -> false, host -> CompletableFuture.completedFuture(new Waker.Wake.NoApp()),
                new RecentRequests(Clock.systemUTC()), null);
        for (int p = 0; p < projects; p++) {
            Target t = new Target.Upstream(20000 + p % 20000);
            routes.setLive("p" + p, "d" + p, t, t);
            if (p % 10 == 0) routes.setDomain("www.p" + p + ".example", "p" + p);
        }
        edge.publish();
        return new Install(projects, routes, edge, new ArrayList<>(), new long[1]);
    }

    /** Switches production of one project after another between two ports, as a rollback does. */
    static void change(Install i, int changes, boolean timed) {
        for (int c = 0; c < changes; c++) {
            long n = i.made()[0]++;
            int p = (int) (n % i.projects());
            Target t = new Target.Upstream(40000 + (int) (n / i.projects() & 1) * 1000 + p % 1000);
            long t0 = System.nanoTime();
            i.routes().setProduction("p" + p, t);
            long took = System.nanoTime() - t0;
            if (timed) i.nanos().add(took);
        }
    }
}
