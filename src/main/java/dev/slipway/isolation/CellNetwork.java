package dev.slipway.isolation;

import java.nio.file.Path;
import java.util.List;

/**
 * A network namespace for one cell: its handle (a bind mount that keeps it alive), the pid file of the pasta
 * that connects it, the loopback port forwarded in (0: none) and the host loopback ports forwarded out.
 *
 * @param madeAt {@link System#nanoTime()} when it was made (ready networks are remade after a while)
 */
record CellNetwork(Path handle, Path pastaPid, int port, List<Integer> forwards, long madeAt) {
    CellNetwork {
        forwards = List.copyOf(forwards);
    }
}
