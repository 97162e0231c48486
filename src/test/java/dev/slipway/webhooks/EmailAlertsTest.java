package dev.slipway.webhooks;

import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.GreenMailUtil;
import com.icegreen.greenmail.util.ServerSetup;
import dev.slipway.accounts.Tier;
import dev.slipway.mail.MailSettings;
import dev.slipway.testing.Await;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.Http;
import dev.slipway.testing.ServerPerStore;
import dev.slipway.testing.Statuses;
import dev.slipway.testing.Zips;
import jakarta.mail.internet.MimeMessage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An endpoint of format email mails its events through the server's SMTP server (a real one on loopback): a test event,
 * and a deployment that fails, each once, the line as the subject and the event below; wrong pairs of URL and format
 * are 400s.
 */
@EachStore
@EndToEnd
class EmailAlertsTest {
    private static final long MAIL_DEADLINE_MS = 60_000;

    static final GreenMail smtp = started();

    @RegisterExtension
    static final ServerPerStore server = ServerPerStore.start(c -> c.mail(
            new MailSettings(URI.create("smtp://slipway:pw@127.0.0.1:" + smtp.getSmtp().getPort()), "Slipway <ops@example.com>")));

    private static GreenMail started() {
        GreenMail mail = new GreenMail(new ServerSetup(0, "127.0.0.1", ServerSetup.PROTOCOL_SMTP));
        mail.setUser("slipway", "pw");
        mail.start();
        return mail;
    }

    @AfterAll
    static void stop() {
        smtp.stop();
    }

    @Test
    void aFailedDeploymentAndATestEventAreMailedOnceEach() throws Exception {
        Http http = server.tenant(Tier.PRO).http();
        String to = "oncall-" + server.kind().name().toLowerCase() + "@example.com";
        for (String bad : List.of("{\"url\":\"mailto:" + to + "\",\"events\":[\"*\"]}",
                "{\"url\":\"mailto:" + to + "\",\"events\":[\"*\"],\"format\":\"slack\"}",
                "{\"url\":\"https://hooks.example.com/x\",\"events\":[\"*\"],\"format\":\"email\"}",
                "{\"url\":\"mailto:a@example.com,b@example.com\",\"events\":[\"*\"],\"format\":\"email\"}",
                "{\"url\":\"mailto:" + to + "?bcc=else@example.com\",\"events\":[\"*\"],\"format\":\"email\"}")) {
            var r = http.post("/v1/webhooks", bad);
            assertThat(r.status()).as(bad + " " + r.body()).isEqualTo(400);
        }
        var hook = http.post("/v1/webhooks", "{\"url\":\"mailto:" + to + "\",\"events\":[\"deployment.failed\",\"migration.failed\"],\"format\":\"email\"}");
        assertThat(hook.status()).as(hook.body()).isEqualTo(201);
        String id = hook.json().at("/data/id").asText();
        assertThat(http.send("POST", "/v1/webhooks/" + id + "/test", null, null).status()).isEqualTo(202);
        MimeMessage test = awaitMail(to, "webhook.test");
        assertThat(GreenMailUtil.getBody(test)).contains("A test event from Slipway").contains("\"type\"");
        Await.until(Duration.ofSeconds(30), "the test delivery to be recorded delivered", () ->
                http.get("/v1/webhooks/" + id + "/deliveries").body().contains("\"status\":\"succeeded\""));

        var upload = http.send("POST", "/v1/uploads", "application/zip", Zips.of(Map.of(
                "package.json", "{\"name\": \"broken\", \"version\": \"1.0.0\", \"private\": true, "
                        + "\"scripts\": {\"build\": \"echo the build breaks; exit 3\", \"start\": \"node server.js\"}}\n",
                "server.js", "require('http').createServer((q, s) => s.end('x')).listen(process.env.PORT);\n")));
        var migration = http.post("/v1/migrations", "{\"source\":\"zip\",\"framework\":\"node-express\",\"upload_id\":\""
                + upload.json().at("/data/id").asText() + "\"}");
        var failed = Statuses.await(http, "migrations", migration.json().at("/data/id").asText(), "failed", Duration.ofMinutes(3));
        MimeMessage mail = awaitMail(to, "failed");
        assertThat(GreenMailUtil.getBody(mail)).contains(".failed").contains(failed.get("project_id").asText());
        assertThat(Arrays.stream(smtp.getReceivedMessagesForDomain("example.com")).filter(m -> subject(m).contains("failed")
                && recipient(m).equals(to))).as("once").hasSize(1);
        assertThat(Arrays.stream(smtp.getReceivedMessages()).filter(m -> subject(m).contains("webhook.test") && recipient(m).equals(to)))
                .as("the test event, once").hasSize(1);
    }

    private static MimeMessage awaitMail(String to, String subjectPart) throws InterruptedException {
        long deadline = System.currentTimeMillis() + MAIL_DEADLINE_MS;
        while (System.currentTimeMillis() < deadline) {
            for (MimeMessage m : smtp.getReceivedMessages()) {
                if (recipient(m).equals(to) && subject(m).contains(subjectPart)) return m;
            }
            smtp.waitForIncomingEmail(1000, smtp.getReceivedMessages().length + 1);
        }
        throw new AssertionError("no mail to " + to + " about " + subjectPart + " within " + MAIL_DEADLINE_MS + " ms");
    }

    private static String subject(MimeMessage m) {
        try {
            return m.getSubject();
        } catch (jakarta.mail.MessagingException e) {
            return "";
        }
    }

    private static String recipient(MimeMessage m) {
        try {
            return GreenMailUtil.getAddressList(m.getAllRecipients());
        } catch (jakarta.mail.MessagingException e) {
            return "";
        }
    }
}
