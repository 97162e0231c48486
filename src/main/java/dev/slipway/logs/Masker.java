package dev.slipway.logs;

import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * Replaces secret values (env var values, passwords) in log lines with {@code ****}, longest first so
 * a secret that contains another is masked whole. Values shorter than 4 characters are not masked:
 * every env value counts as a secret, and masking {@code 1} or {@code on} would garble every line
 * while protecting nothing.
 */
public final class Masker {
    private final List<String> secrets;

    public Masker(Collection<String> secrets) {
        this.secrets = secrets.stream().filter(s -> s != null && s.length() >= 4).distinct()
                .sorted(Comparator.comparingInt(String::length).reversed()).toList();
    }

    public String mask(String line) {
        String out = line;
        for (String s : secrets) {
            if (out.contains(s)) out = out.replace(s, "****");
        }
        return out;
    }
}
