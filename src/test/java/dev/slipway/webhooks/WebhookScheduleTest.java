package dev.slipway.webhooks;

import dev.slipway.net.AddressGuard;
import dev.slipway.accounts.Account;
import dev.slipway.accounts.AccountStore;
import dev.slipway.accounts.Tier;
import dev.slipway.secrets.SecretBox;
import dev.slipway.store.Database;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Await;
import dev.slipway.testing.TestStore;
import dev.slipway.testing.WebhookReceiver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The default retry schedule and the 5-day rule, with the dispatcher on a real store and a real
 * receiver, and the injected clock moved forward instead of waiting days.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.slipway.testing.TestStore#kinds")
class WebhookScheduleTest {
    /** The system clock plus an offset a test moves forward. */
    static final class ShiftedClock extends Clock {
        final AtomicReference<Duration> offset = new AtomicReference<>(Duration.ZERO);

        @Override public ZoneId getZone() { return ZoneOffset.UTC; }
        @Override public Clock withZone(ZoneId zone) { return this; }
        @Override public Instant instant() { return Instant.now().plus(offset.get()); }
    }

    @Parameter
    Dialect kind;

    TestStore store;
    Database database;
    WebhookReceiver receiver;
    Dispatcher dispatcher;
    final ShiftedClock clock = new ShiftedClock();

    @BeforeEach
    void setUp() {
        store = TestStore.create(kind);
        database = Database.open(store.jdbcUrl(), 4);
        receiver = WebhookReceiver.start();
    }

    @AfterEach
    void tearDown() {
        if (dispatcher != null) dispatcher.close();
        receiver.close();
        database.close();
        store.close();
    }

    @Test
    void theDefaultScheduleRetriesAfterAboutFiveSecondsAndFiveDaysOfFailuresDisable() {
        var jdbi = database.jdbi();
        Account account = new AccountStore(jdbi, clock).create("acme", Tier.TEAM, null);
        SecretBox box = SecretBox.fromBase64(store.secretKey());
        EndpointStore endpoints = new EndpointStore(jdbi, clock);
        DeliveryStore deliveries = new DeliveryStore(jdbi, clock);
        Instant now = clock.instant();
        Endpoint e = new Endpoint("wh_test", account.id(), receiver.url("/down"), null, List.of("*"), true, null,
                box.encrypt(Signer.newSecret()), null, null, null, now, now);
        endpoints.insert(e);
        receiver.answer(r -> 500);
        dispatcher = new Dispatcher(endpoints, deliveries, box, new AddressGuard(true), WebhookSettings.DEFAULT_RETRIES,
                clock, "node-schedule-test", null);
        dispatcher.start();

        Delivery queued = deliveries.enqueue(e.id(), "msg_1", EventTypes.TEST, "{\"type\":\"webhook.test\"}");
        dispatcher.wake();
        Delivery first = Await.value(Duration.ofSeconds(10), "the first attempt",
                () -> deliveries.find(queued.id()).filter(d -> d.attempts() == 1).orElse(null));
        assertThat(first.state()).isEqualTo(DeliveryState.PENDING);
        assertThat(first.lastStatusCode()).isEqualTo(500);
        Duration wait = Duration.between(first.lastAttemptAt(), first.nextAttemptAt());
        assertThat(wait).as("5 s with ±20 %% jitter").isBetween(Duration.ofMillis(3900), Duration.ofMillis(6100));
        assertThat(endpoints.nextDue()).as("the poller sleeps until the retry").contains(first.nextAttemptAt());
        Instant failingSince = endpoints.find(e.id()).orElseThrow().failingSince();
        assertThat(failingSince).isNotNull();

        // five days of nothing but failures later, the next failure disables the endpoint
        clock.offset.set(Duration.ofDays(5).plusMinutes(1));
        dispatcher.wake();
        Endpoint disabled = Await.value(Duration.ofSeconds(10), "the endpoint to be disabled",
                () -> endpoints.find(e.id()).filter(x -> !x.enabled()).orElse(null));
        assertThat(disabled.disabledReason()).contains("every delivery failed since " + failingSince).contains("5 days")
                .contains("HTTP 500");
        Delivery last = deliveries.find(queued.id()).orElseThrow();
        assertThat(last.state()).isEqualTo(DeliveryState.FAILED);
        assertThat(last.attempts()).isEqualTo(2);
        assertThat(receiver.received()).hasSize(2);

        // a disabled endpoint gets nothing, even what was queued for it
        Delivery later = deliveries.enqueue(e.id(), "msg_2", EventTypes.TEST, "{}");
        assertThat(endpoints.due(10)).doesNotContain(e.id());
        assertThat(endpoints.claim(e.id(), "someone", Duration.ofSeconds(30))).isFalse();
        assertThat(deliveries.find(later.id()).orElseThrow().attempts()).isZero();
        assertThat(endpoints.nextDue()).as("nothing to wake up for").isEmpty();

        // housekeeping: finished deliveries go after 30 days, waiting ones stay; without an endpoint all go
        clock.offset.set(Duration.ofDays(36));
        assertThat(deliveries.sweep(DeliveryStore.RETENTION)).isEqualTo(1);
        assertThat(deliveries.find(queued.id())).isEmpty();
        assertThat(deliveries.find(later.id())).isPresent();
        endpoints.delete(e.id());
        deliveries.enqueue(e.id(), "msg_3", EventTypes.TEST, "{}"); // as a state change racing the delete would
        assertThat(deliveries.sweep(DeliveryStore.RETENTION)).isEqualTo(1);
    }

    @Test
    void schedulesParseAndJitterStaysWithinBounds() {
        assertThat(WebhookSettings.parseSchedule("5, 200ms ,PT5M")).containsExactly(Duration.ofSeconds(5),
                Duration.ofMillis(200), Duration.ofMinutes(5));
        assertThatThrownBy(() -> WebhookSettings.parseSchedule("5,-1")).hasMessageContaining("'-1'");
        assertThatThrownBy(() -> WebhookSettings.parseSchedule("soon")).hasMessageContaining("SLIPWAY_WEBHOOKS_RETRY_SCHEDULE");
        assertThat(WebhookSettings.DEFAULT_RETRIES).containsExactly(Duration.ofSeconds(5), Duration.ofMinutes(5),
                Duration.ofMinutes(30), Duration.ofHours(2), Duration.ofHours(5), Duration.ofHours(10), Duration.ofHours(14),
                Duration.ofHours(20), Duration.ofHours(24));
        for (int i = 0; i < 1000; i++) {
            assertThat(Dispatcher.jitter(Duration.ofHours(2))).isBetween(Duration.ofMinutes(96), Duration.ofMinutes(144));
        }
    }
}
