package dev.slipway.tls;

import java.util.Arrays;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * HTTPS to the apps listener on loopback as a browser would reach {@code host}: SNI {@code host}, the chain
 * verified against one trusted root only, and the name checked (endpoint identification HTTPS).
 */
final class TlsClient {
    record Response(int status, Map<String, String> headers, String body, List<X509Certificate> chain) {
        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    private final SSLContext ssl;

    TlsClient(X509Certificate root) throws Exception {
        KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        trust.setCertificateEntry("root", root);
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        ssl = SSLContext.getInstance("TLS");
        ssl.init(null, tmf.getTrustManagers(), null);
    }

    Response get(int port, String host, String path) throws IOException {
        try (SSLSocket socket = open(ssl, port, host, true)) {
            socket.startHandshake();
            List<X509Certificate> chain = Arrays.stream(socket.getSession().getPeerCertificates())
                    .map(c -> (X509Certificate) c).toList();
            socket.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            String raw = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int end = raw.indexOf("\r\n\r\n");
            String[] lines = raw.substring(0, end).split("\r\n");
            Map<String, String> headers = new LinkedHashMap<>();
            for (int i = 1; i < lines.length; i++) {
                int colon = lines[i].indexOf(':');
                headers.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).trim());
            }
            return new Response(Integer.parseInt(lines[0].split(" ")[1]), headers, raw.substring(end + 4), chain);
        }
    }

    /** What the server hands out to a handshake offering {@code protocols} by ALPN: the protocol chosen and the leaf. */
    record Handshake(String protocol, X509Certificate leaf) {}

    /** A handshake with SNI {@code host} offering {@code protocols}, trusting any certificate (a probe, not a browser). */
    static Handshake probe(int port, String host, String... protocols) throws Exception {
        SSLContext any = SSLContext.getInstance("TLS");
        any.init(null, new TrustManager[]{new X509TrustManager() {
            @Override public void checkClientTrusted(X509Certificate[] chain, String authType) { }
            @Override public void checkServerTrusted(X509Certificate[] chain, String authType) { }
            @Override public X509Certificate[] getAcceptedIssuers() { return new X509Certificate[0]; }
        }}, null);
        try (SSLSocket socket = open(any, port, host, false)) {
            SSLParameters params = socket.getSSLParameters();
            params.setApplicationProtocols(protocols);
            socket.setSSLParameters(params);
            socket.startHandshake();
            return new Handshake(socket.getApplicationProtocol(), (X509Certificate) socket.getSession().getPeerCertificates()[0]);
        }
    }

    private static SSLSocket open(SSLContext ssl, int port, String host, boolean checkName) throws IOException {
        Socket plain = new Socket();
        plain.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        plain.setSoTimeout(10_000);
        SSLSocket socket = (SSLSocket) ssl.getSocketFactory().createSocket(plain, host, port, true);
        SSLParameters params = socket.getSSLParameters();
        params.setServerNames(List.of(new SNIHostName(host)));
        if (checkName) params.setEndpointIdentificationAlgorithm("HTTPS");
        socket.setSSLParameters(params);
        return socket;
    }
}
