package dev.slipway.domains;

import dev.slipway.projects.ProjectView;
import java.net.SocketTimeoutException;
import java.util.Locale;
import org.xbill.DNS.DClass;
import org.xbill.DNS.ExtendedResolver;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Resolver;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.TXTRecord;
import org.xbill.DNS.TextParseException;
import org.xbill.DNS.Type;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The DNS check of a domain's proof: does the TXT record at {@code _slipway-challenge.<domain>} hold the
 * project's token? Asks the configured DNS servers (or the system's) with dnsjava, never caching, and gives
 * up after the configured timeout: a dead server fails the check in seconds, with the reason.
 */
public final class DomainProof {
    private static final int MAX_SHOWN = 80;

    /** @param reason why it is not verified (null when it is) */
    public record Outcome(boolean verified, String reason) {}

    private final Resolver resolver;
    private final long timeoutMillis;

    public DomainProof(DomainSettings settings) {
        this.timeoutMillis = settings.dnsTimeout().toMillis();
        if (settings.dnsServers().size() == 1) {
            SimpleResolver one = new SimpleResolver(settings.dnsServers().getFirst());
            one.setTimeout(settings.dnsTimeout());
            resolver = one;
        } else {
            ExtendedResolver many = settings.dnsServers().isEmpty() ? new ExtendedResolver()
                    : new ExtendedResolver(settings.dnsServers().stream().map(a -> (Resolver) new SimpleResolver(a)).toList());
            many.setTimeout(settings.dnsTimeout());
            resolver = many;
        }
    }

    /** The name whose TXT record proves control of {@code domain}. */
    public static String recordName(String domain) {
        return ProjectView.RECORD_PREFIX + domain;
    }

    public Outcome check(String domain, String token) {
        String name = recordName(domain);
        Message response;
        try {
            Message query = Message.newQuery(Record.newRecord(Name.fromString(name + "."), Type.TXT, DClass.IN));
            // bounded here too: the resolver's own timeout is per try
            response = resolver.sendAsync(query).toCompletableFuture().get(timeoutMillis + 500, TimeUnit.MILLISECONDS);
        } catch (TextParseException e) {
            return new Outcome(false, "the name " + name + " is not a valid DNS name");
        } catch (TimeoutException e) {
            return new Outcome(false, "DNS error: no answer for " + name + " within " + timeoutMillis + " ms");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            String what = cause instanceof SocketTimeoutException || cause instanceof TimeoutException
                    || String.valueOf(cause.getMessage()).toLowerCase(Locale.ROOT).contains("timed out")
                    ? "no answer for " + name + " within " + timeoutMillis + " ms" : "asking for " + name + " failed (" + cause.getClass().getSimpleName() + ")";
            return new Outcome(false, "DNS error: " + what);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Outcome(false, "DNS error: the check was interrupted");
        }
        int rcode = response.getRcode();
        if (rcode == Rcode.NXDOMAIN) return new Outcome(false, "no TXT record at " + name + " (the name does not exist)");
        if (rcode != Rcode.NOERROR) return new Outcome(false, "DNS error: the DNS server answered " + Rcode.string(rcode) + " for " + name);
        List<String> values = new ArrayList<>();
        for (Record r : response.getSection(Section.ANSWER)) {
            if (r instanceof TXTRecord txt) values.add(String.join("", txt.getStrings()));
        }
        if (values.isEmpty()) return new Outcome(false, "no TXT record at " + name);
        for (String v : values) if (v.strip().equals(token)) return new Outcome(true, null);
        return new Outcome(false, "the TXT record at " + name + " holds " + shown(values) + ", not this project's token");
    }

    /** What the records hold, short and printable (they are anybody's data). */
    private static String shown(List<String> values) {
        List<String> out = new ArrayList<>();
        for (String v : values.subList(0, Math.min(values.size(), 3))) {
            String clean = v.replaceAll("[^\\x20-\\x7e]", "?");
            if (clean.length() > MAX_SHOWN) clean = clean.substring(0, MAX_SHOWN) + "…";
            out.add("\"" + clean + "\"");
        }
        if (values.size() > 3) out.add("and " + (values.size() - 3) + " more");
        return String.join(", ", out);
    }
}
