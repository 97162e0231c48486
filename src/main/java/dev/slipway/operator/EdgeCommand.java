package dev.slipway.operator;

import dev.slipway.config.ServerConfig;
import dev.slipway.edge.EdgeProcess;
import dev.slipway.net.ClientGate;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code slipway edge}: the apps listener as a process of its own, which the server starts (and adopts after a
 * restart); not a command an operator runs by hand.
 */
@Command(name = "edge", mixinStandardHelpOptions = true, hidden = true,
        description = "The apps listener as a process of its own: the server starts it and sends it its routes.")
public final class EdgeCommand implements Callable<Integer> {
    @Option(names = "--data-dir", required = true, description = "The server's data dir") Path dataDir;
    @Option(names = "--host", defaultValue = "127.0.0.1", description = "Where to listen") String host;
    @Option(names = "--apps-port", required = true, description = "The apps port (0: any free one)") int port;
    @Option(names = "--apps-domain", required = true, description = "The apps domain") String appsDomain;
    @Option(names = "--https-port", description = "The apps HTTPS port (0: any free one); none: no HTTPS") Integer httpsPort;

    @Override
    public Integer call() throws Exception {
        ServerConfig config;
        try {
            config = ServerConfig.builder(dataDir).environment(System.getenv()).build();
        } catch (IllegalArgumentException e) {
            System.err.println("slipway edge: " + e.getMessage());
            return 2;
        }
        return EdgeProcess.run(new EdgeProcess.Options(dataDir, host, port, appsDomain,
                ClientGate.forApps(config.clientLimits(), config.trustedProxies()), config.runtime().healthTimeout(), httpsPort), System.out);
    }
}
