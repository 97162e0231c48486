package dev.slipway.net;

import org.eclipse.jetty.io.SelectorManager;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A Jetty connector's accepted connections counted by a {@link ClientGate}. A connection over the gate's caps is
 * closed as soon as it is accepted, before Jetty makes anything of it (with the gate's 503 first on plain HTTP;
 * a TLS client just sees the connection close); Jetty then drops it quietly.
 */
final class GateAcceptListener implements SelectorManager.AcceptListener {
    private final ClientGate gate;
    private final boolean plain;
    /** The key each counted connection was counted under, until it closes. */
    private final ConcurrentHashMap<SelectableChannel, Long> counted = new ConcurrentHashMap<>();

    GateAcceptListener(ClientGate gate, boolean plain) {
        this.gate = gate;
        this.plain = plain;
    }

    @Override
    public void onAccepting(SelectableChannel channel) {
        long key;
        try {
            key = gate.key(((InetSocketAddress) ((SocketChannel) channel).getRemoteAddress()).getAddress());
        } catch (IOException | RuntimeException e) {
            return; // gone already: Jetty fails its registration
        }
        if (gate.open(key)) {
            counted.put(channel, key);
            return;
        }
        if (plain) {
            try {
                ((SocketChannel) channel).write(ByteBuffer.wrap(gate.refusal())); // non-blocking: a new socket takes it whole
            } catch (IOException ignored) {
                // closing anyway
            }
        }
        try {
            channel.close(); // Jetty's registration of it fails, and it forgets it (onAcceptFailed)
        } catch (IOException ignored) {
            // closed
        }
    }

    @Override
    public void onAcceptFailed(SelectableChannel channel, Throwable cause) {
        release(channel);
    }

    @Override
    public void onClosed(SelectableChannel channel) {
        release(channel);
    }

    private void release(SelectableChannel channel) {
        Long key = counted.remove(channel);
        if (key != null) gate.close(key);
    }
}
