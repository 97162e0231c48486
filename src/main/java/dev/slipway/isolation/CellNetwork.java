package dev.slipway.isolation;

import java.nio.file.Path;
import java.util.List;

/**
 * A network namespace for one cell: its handle (a bind mount that keeps it alive), the handle of the user
 * namespace that owns it (mounted only when its pasta has a uid of its own), the pid file of the pasta that connects it, the loopback
 * port forwarded in (0: none) and the host loopback ports forwarded out.
 *
 * @param madeAt {@link System#nanoTime()} when it was made (ready networks are remade after a while)
 */
record CellNetwork(Path handle, Path owner, Path pastaPid, int port, List<Integer> forwards, long madeAt) {
    static final String VETH = ".veth";

    CellNetwork {
        forwards = List.copyOf(forwards);
    }

    /** The record of its veth pair (its slot and port; none when the way in is its pasta's), beside its handle. */
    Path veth() {
        String name = handle.getFileName().toString();
        return handle.resolveSibling(name.substring(0, name.lastIndexOf('.')) + VETH);
    }

    /** The same network, made now as far as its age goes (a reserved one is not remade while it waits for its cell). */
    CellNetwork renewed() {
        return new CellNetwork(handle, owner, pastaPid, port, forwards, System.nanoTime());
    }
}
