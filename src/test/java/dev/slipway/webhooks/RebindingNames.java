package dev.slipway.webhooks;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.net.spi.InetAddressResolver;
import java.net.spi.InetAddressResolverProvider;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * The test JVM's name resolution (installed through the service loader): a name under {@link #DOMAIN}
 * answers what a DNS rebinding answers, a public address (TEST-NET-1) at its first lookup and loopback at
 * every later one; a name given to {@link #rebind} answers its first address at its first lookup and its later
 * one after. Every other name goes to the JDK's own resolver. The test JVM caches no answer
 * ({@code sun.net.inetaddr.ttl=0} in the pom), so each lookup reaches this.
 */
public final class RebindingNames extends InetAddressResolverProvider {
    public static final String DOMAIN = ".rebind.test";
    private static final Map<String, AtomicInteger> LOOKUPS = new ConcurrentHashMap<>();
    private static final Map<String, InetAddress[]> REBOUND = new ConcurrentHashMap<>();

    /** From now on {@code host} answers {@code first} at its first lookup and {@code later} at every other one. */
    public static void rebind(String host, InetAddress first, InetAddress later) {
        REBOUND.put(host, new InetAddress[]{first, later});
    }

    /** How many times the name was looked up. */
    public static int lookups(String name) {
        AtomicInteger n = LOOKUPS.get(name);
        return n == null ? 0 : n.get();
    }

    @Override
    public InetAddressResolver get(Configuration configuration) {
        InetAddressResolver builtin = configuration.builtinResolver();
        return new InetAddressResolver() {
            @Override
            public Stream<InetAddress> lookupByName(String host, LookupPolicy policy) throws UnknownHostException {
                InetAddress[] rebound = REBOUND.get(host);
                if (rebound == null && !host.endsWith(DOMAIN)) return builtin.lookupByName(host, policy);
                int n = LOOKUPS.computeIfAbsent(host, h -> new AtomicInteger()).incrementAndGet();
                if (rebound != null) return Stream.of(InetAddress.getByAddress(host, rebound[n == 1 ? 0 : 1].getAddress()));
                byte[] address = n == 1 ? new byte[] {(byte) 192, 0, 2, 1} : new byte[] {127, 0, 0, 1};
                return Stream.of(InetAddress.getByAddress(host, address));
            }

            @Override
            public String lookupByAddress(byte[] addr) throws UnknownHostException {
                return builtin.lookupByAddress(addr);
            }
        };
    }

    @Override
    public String name() {
        return "rebinding names for tests";
    }
}
