package dev.slipway.databases;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * What a connect migration's log says about a port that is not a database: the same words whether it is
 * closed, open to something else, or silent, so that the log is no port scanner.
 */
class ConnectionsTest {
    private static String failure(DbKind kind, int port) {
        DbAddress a = DbAddress.parse(kind.label() + "://someone@127.0.0.1:" + port + "/app").with("app", "someone", "pw-x");
        try {
            Connections.open(a).close();
            return fail("connected to " + port);
        } catch (SQLException e) {
            return Connections.describeTarget(e, a).replace(":" + port, ":PORT");
        }
    }

    @ParameterizedTest
    @EnumSource(DbKind.class)
    void closedOpenAndSilentPortsReadTheSame(DbKind kind) throws Exception {
        List<String> said = new ArrayList<>();
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        said.add(failure(kind, closed));
        try (ServerSocket web = new ServerSocket(0)) { // something else listens: it answers HTTP and hangs up
            Thread.ofVirtual().start(() -> {
                while (!web.isClosed()) {
                    try (Socket c = web.accept(); OutputStream out = c.getOutputStream()) {
                        out.write("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    } catch (Exception closedNow) {
                        return;
                    }
                }
            });
            said.add(failure(kind, web.getLocalPort()));
        }
        if (kind == DbKind.POSTGRES) { // accepts and says nothing (MySQL's driver would wait its 60 s read timeout)
            try (ServerSocket silent = new ServerSocket(0)) {
                List<Socket> held = new ArrayList<>();
                Thread.ofVirtual().start(() -> {
                    try {
                        while (true) held.add(silent.accept());
                    } catch (Exception closedNow) {
                        // done
                    }
                });
                said.add(failure(kind, silent.getLocalPort()));
            }
        }
        assertThat(said).allMatch(m -> m.equals(said.get(0)), "the same for every port: " + said);
        assertThat(said.get(0)).startsWith("no " + kind.label() + " server answered at 127.0.0.1:PORT");
    }
}
