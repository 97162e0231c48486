package dev.slipway.tls;

import java.util.List;
import java.util.Set;

/**
 * What the apps HTTPS listener serves, as the server sends it to its edge process: every certificate with its key
 * (PEM), and the hosts whose HTTPS answers carry HSTS.
 */
public record TlsState(List<Served> certificates, Set<String> hsts) {
    /** @param domain null for the operator's wildcard certificate */
    public record Served(String domain, String alias, String chainPem, String keyPem) {}
}
