package dev.slipway.webhooks;

import dev.slipway.net.AddressGuard;
import org.eclipse.jetty.util.Promise;
import org.eclipse.jetty.util.SocketAddressResolver;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The webhook client's name resolution: the one lookup a new connection makes goes through the
 * {@link AddressGuard}, and the connection is made to the addresses it checked. Checking a name and then
 * letting the client look it up again would leave a gap a DNS rebinding gets through.
 */
final class PinnedResolver implements SocketAddressResolver {
    private final AddressGuard guard;

    PinnedResolver(AddressGuard guard) {
        this.guard = guard;
    }

    @Override
    public void resolve(String host, int port, Map<String, Object> context, Promise<List<InetSocketAddress>> promise) {
        InetAddress[] addresses;
        try {
            addresses = guard.resolve(host);
        } catch (AddressGuard.Refused refused) {
            promise.failed(refused);
            return;
        }
        promise.succeeded(Arrays.stream(addresses).map(a -> new InetSocketAddress(a, port)).toList());
    }
}
