package dev.slipway.mail;

import jakarta.mail.Message;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.Transport;
import jakarta.mail.internet.AddressException;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Date;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Sends plain-text mail through the operator's SMTP server, one at a time on a thread of its own: a request that
 * sends mail answers at once, in the same time whether it sent one or not. A failure is logged with the recipient
 * and the error, never the text (it may hold a secret link).
 */
public final class Mailer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Mailer.class);
    private static final String TIMEOUT_MS = "20000";

    private final URI smtp;
    private final String scheme;
    private final InternetAddress from;
    private final Session session;
    private final Clock clock;
    private final ExecutorService sender = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "slipway-mail");
        t.setDaemon(true);
        return t;
    });

    private Mailer(URI smtp, InternetAddress from, Clock clock) {
        this.smtp = smtp;
        this.scheme = smtp.getScheme().toLowerCase(Locale.ROOT);
        this.from = from;
        this.clock = clock;
        this.session = Session.getInstance(properties());
    }

    /** A mailer for these settings, or null when mail is off. IllegalArgumentException for a bad sender. */
    public static Mailer of(MailSettings settings, String appsDomain, Clock clock) {
        if (!settings.enabled()) return null;
        String from = settings.from() != null ? settings.from() : "Slipway <slipway@" + appsDomain + ">";
        try {
            InternetAddress address = new InternetAddress(from, true);
            return new Mailer(settings.smtp(), address, clock);
        } catch (AddressException e) {
            throw new IllegalArgumentException(MailSettings.FROM.variable() + " is not a mail address: " + e.getMessage());
        }
    }

    private Properties properties() {
        String p = "mail." + scheme + ".";
        Properties props = new Properties();
        props.setProperty(p + "connectiontimeout", TIMEOUT_MS);
        props.setProperty(p + "timeout", TIMEOUT_MS);
        props.setProperty(p + "writetimeout", TIMEOUT_MS);
        props.setProperty(p + "auth", Boolean.toString(smtp.getRawUserInfo() != null));
        props.setProperty(p + "ssl.checkserveridentity", "true");
        if (scheme.equals("smtp")) {
            props.setProperty(p + "starttls.enable", "true");
            // a password or a reset link crosses the network only encrypted; loopback is the same machine
            props.setProperty(p + "starttls.required", Boolean.toString(!loopback(smtp.getHost())));
        }
        return props;
    }

    private static boolean loopback(String host) {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** Queues a mail; the returned future completes when the SMTP server took it (or with why not). */
    public Future<?> send(String to, String subject, String text) {
        return sender.submit(() -> {
            try {
                deliver(to, subject, text);
            } catch (MessagingException | RuntimeException e) {
                LOG.warn("mail to {} failed: {}", to, e.getMessage());
                throw new IllegalStateException("mail to " + to + " failed: " + e.getMessage(), e);
            }
            return null;
        });
    }

    private void deliver(String to, String subject, String text) throws MessagingException {
        MimeMessage message = new MimeMessage(session);
        message.setFrom(from);
        message.setRecipient(Message.RecipientType.TO, new InternetAddress(to, true));
        message.setSubject(subject, "UTF-8");
        message.setText(text, "UTF-8");
        message.setSentDate(Date.from(clock.instant()));
        int port = smtp.getPort() > 0 ? smtp.getPort() : scheme.equals("smtps") ? 465 : 587;
        try (Transport transport = session.getTransport(scheme)) {
            transport.connect(smtp.getHost(), port, user(0), user(1));
            transport.sendMessage(message, message.getAllRecipients());
        }
    }

    /** The user (0) or password (1) of the URL, decoded; null when it has none. */
    private String user(int part) {
        String info = smtp.getRawUserInfo();
        if (info == null) return null;
        String[] parts = info.split(":", 2);
        // percent-decoding only: a '+' in a password is a plus, not a space
        return part < parts.length ? URLDecoder.decode(parts[part].replace("+", "%2B"), StandardCharsets.UTF_8) : null;
    }

    @Override
    public void close() {
        sender.shutdown();
        try {
            sender.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
