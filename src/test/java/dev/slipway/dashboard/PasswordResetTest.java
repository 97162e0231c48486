package dev.slipway.dashboard;

import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.GreenMailUtil;
import com.icegreen.greenmail.util.ServerSetup;
import dev.slipway.accounts.Tier;
import dev.slipway.mail.MailSettings;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.ServerPerStore;
import jakarta.mail.internet.MimeMessage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.net.http.HttpResponse;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.slipway.dashboard.WebClient.csrf;
import static dev.slipway.dashboard.WebClient.form;
import static org.assertj.core.api.Assertions.assertThat;

/** A forgotten password reset by mail, through a real SMTP server on loopback, on both stores. */
@EachStore
@EndToEnd
class PasswordResetTest {
    private static final String OLD = "correct horse battery";
    private static final String NEW = "a much longer new password";
    private static final Pattern LINK = Pattern.compile("(http://\\S+/dashboard/password-reset/(\\S+))");
    private static final long MAIL_DEADLINE_MS = 30_000;

    static final GreenMail smtp = started();

    @RegisterExtension
    static final ServerPerStore server = ServerPerStore.start(c -> c.mail(
            new MailSettings(URI.create("smtp://slipway:s3cret%2Bpass@127.0.0.1:" + smtp.getSmtp().getPort()), "Slipway <ops@example.com>")));

    private static GreenMail started() {
        GreenMail mail = new GreenMail(new ServerSetup(0, "127.0.0.1", ServerSetup.PROTOCOL_SMTP));
        mail.setUser("slipway", "s3cret+pass");
        mail.start();
        return mail;
    }

    @AfterAll
    static void stop() {
        smtp.stop();
    }

    private static String user() {
        String email = "r-" + UUID.randomUUID().toString().substring(0, 8) + "@example.com";
        server.slipway().users().create(server.tenant(Tier.FREE).account().id(), email, OLD);
        return email;
    }

    private static HttpResponse<String> ask(WebClient web, String email) {
        String token = csrf(web.get(PasswordResetPages.PATH).body());
        return web.post(PasswordResetPages.PATH, form("_csrf", token, "email", email));
    }

    /** Waits for the mails received so far to number {@code count}; returns those sent to {@code to}. */
    private static List<MimeMessage> mailsTo(String to, int count) {
        assertThat(smtp.waitForIncomingEmail(MAIL_DEADLINE_MS, count)).as("%d mails within %d ms", count, MAIL_DEADLINE_MS).isTrue();
        return Arrays.stream(smtp.getReceivedMessages())
                .filter(m -> recipients(m).contains(to)).toList();
    }

    private static String recipients(MimeMessage m) {
        try {
            return GreenMailUtil.getAddressList(m.getAllRecipients());
        } catch (jakarta.mail.MessagingException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aLinkByMailSetsANewPasswordOnceAndSignsTheUserOutEverywhere() throws Exception {
        smtp.purgeEmailFromAllMailboxes();
        String email = user();
        WebClient signedIn = new WebClient(server.baseUrl());
        assertThat(signedIn.signIn(email, OLD).statusCode()).isEqualTo(303);
        assertThat(new WebClient(server.baseUrl()).get("/dashboard/sign-in").body()).contains("Forgot your password?");

        WebClient web = new WebClient(server.baseUrl());
        HttpResponse<String> asked = ask(web, email.toUpperCase());
        assertThat(asked.statusCode()).isEqualTo(200);
        assertThat(asked.body()).contains("Check your mail", email);

        List<MimeMessage> mails = mailsTo(email, 1);
        assertThat(mails).hasSize(1);
        MimeMessage mail = mails.getFirst();
        assertThat(mail.getFrom()[0].toString()).contains("ops@example.com");
        String text = GreenMailUtil.getBody(mail);
        Matcher link = LINK.matcher(text);
        assertThat(link.find()).as(text).isTrue();
        assertThat(link.group(1)).as("the link is built from the server's own address, never a request's Host")
                .startsWith(server.baseUrl() + "/dashboard/password-reset/");
        String token = link.group(2);
        String path = PasswordResetPages.PATH + "/" + token;
        int stored = server.slipway().database().jdbi().withHandle(h -> h.createQuery(
                "SELECT COUNT(*) FROM password_resets WHERE token_hash = :t").bind("t", token).mapTo(Integer.class).one());
        assertThat(stored)
                .as("only a hash of the link's token is stored").isZero();

        String formToken = csrf(web.get(path).body());
        HttpResponse<String> differ = web.post(path, form("_csrf", formToken, "password", NEW, "confirm", NEW + "x"));
        assertThat(differ.statusCode()).isEqualTo(400);
        assertThat(differ.body()).contains("The two passwords differ.");
        HttpResponse<String> weak = web.post(path, form("_csrf", formToken, "password", "short", "confirm", "short"));
        assertThat(weak.statusCode()).isEqualTo(400);
        assertThat(weak.body()).contains("at least 12 characters");
        assertThat(new WebClient(server.baseUrl()).post(path, form("_csrf", formToken, "password", NEW, "confirm", NEW)).statusCode())
                .as("a form without its cookie's token is refused").isEqualTo(403);

        HttpResponse<String> set = web.post(path, form("_csrf", formToken, "password", NEW, "confirm", NEW));
        assertThat(set.statusCode()).as(set.body()).isEqualTo(303);
        assertThat(set.headers().firstValue("Location")).contains("/dashboard/sign-in?reset=1");
        assertThat(web.get("/dashboard/sign-in?reset=1").body()).contains("Your password is changed");

        assertThat(signedIn.get("/dashboard/projects").statusCode()).as("the old session ended").isEqualTo(302);
        assertThat(new WebClient(server.baseUrl()).signIn(email, OLD).statusCode()).isEqualTo(401);
        assertThat(new WebClient(server.baseUrl()).signIn(email, NEW).statusCode()).isEqualTo(303);

        HttpResponse<String> again = web.get(path);
        assertThat(again.statusCode()).as("a link works once").isEqualTo(400);
        assertThat(again.body()).contains("This link no longer works");
        assertThat(web.post(path, form("_csrf", csrf(web.get(PasswordResetPages.PATH).body()), "password", OLD + "!", "confirm", OLD + "!"))
                .statusCode()).isEqualTo(400);
        assertThat(new WebClient(server.baseUrl()).signIn(email, NEW).statusCode()).isEqualTo(303);
    }

    @Test
    void theAnswerTellsNobodyWhichEmailsHaveUsersAndAUserGetsOneLinkAMinute() throws Exception {
        smtp.purgeEmailFromAllMailboxes();
        String first = user();
        String second = user();
        String stranger = "nobody-" + UUID.randomUUID().toString().substring(0, 8) + "@example.com";
        WebClient web = new WebClient(server.baseUrl());

        HttpResponse<String> unknown = ask(web, stranger);
        HttpResponse<String> known = ask(web, first);
        assertThat(unknown.statusCode()).isEqualTo(known.statusCode()).isEqualTo(200);
        assertThat(unknown.body().replace(stranger, "EMAIL")).isEqualTo(known.body().replace(first, "EMAIL"));
        assertThat(ask(web, first).statusCode()).isEqualTo(200);
        ask(web, second);

        // the mails leave in order, so when the second user's has arrived every earlier one has too
        assertThat(mailsTo(second, 2)).hasSize(1);
        assertThat(mailsTo(first, 2)).as("a second request within a minute sends no second link").hasSize(1);
        assertThat(mailsTo(stranger, 2)).isEmpty();
        assertThat(smtp.getReceivedMessages()).hasSize(2);

        HttpResponse<String> bad = web.post(PasswordResetPages.PATH, form("_csrf", csrf(web.get(PasswordResetPages.PATH).body()),
                "email", "not an email"));
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(bad.body()).contains("Enter the email you sign in with.");
        assertThat(new WebClient(server.baseUrl()).post(PasswordResetPages.PATH, form("_csrf", "forged", "email", first)).statusCode())
                .isEqualTo(403);
        HttpResponse<String> forged = web.get(PasswordResetPages.PATH + "/" + "A".repeat(43));
        assertThat(forged.statusCode()).isEqualTo(400);
        assertThat(forged.body()).contains("This link no longer works").doesNotContain("<form");
    }
}
