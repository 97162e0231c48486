package dev.slipway.runtime.local;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;

/** Loopback ports for apps. Probes bind the wildcard address, the strictest test, as apps often listen on it. */
final class FreePorts {
    private FreePorts() {}

    static int pick() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException("no free port: " + e.getMessage(), e);
        }
    }

    /**
     * True once {@code port} can be bound, polling until {@code within} has passed. A killed app's
     * port stays taken for a moment: its connections linger in FIN_WAIT until their peers (the router's
     * pooled connections) close their side, and Linux refuses the bind until then.
     */
    static boolean awaitFree(int port, Duration within) {
        long deadline = System.nanoTime() + within.toNanos();
        while (true) {
            if (isFree(port)) return true;
            if (System.nanoTime() - deadline >= 0) return false;
            try {
                Thread.sleep(25);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }

    static boolean isFree(int port) {
        if (port <= 0 || port > 65535) return false;
        try (ServerSocket s = new ServerSocket(port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
