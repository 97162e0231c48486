package dev.slipway.store;

import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The table decides every move, in memory and in the store. */
class StateMachineTest {
    enum Light {
        RED, GREEN, AMBER;

        String label() { return name().toLowerCase(Locale.ROOT); }
    }

    private static final StateMachine<Light> MACHINE = StateMachine.builder(Light.class, "light", Light::label)
            .from(Light.RED, Light.GREEN)
            .from(Light.GREEN, Light.AMBER)
            .from(Light.AMBER, Light.RED)
            .build();

    private final Jdbi jdbi = Jdbi.create("jdbc:h2:mem:state_machine_" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
    private final StateMachine<Light>.Stored lights = MACHINE.stored("lights", "colour");
    private final Instant now = Instant.parse("2030-01-01T00:00:00Z");

    @BeforeEach
    void table() {
        jdbi.useHandle(h -> {
            h.execute("CREATE TABLE lights (id VARCHAR(10) PRIMARY KEY, colour VARCHAR(10) NOT NULL, changed_at TIMESTAMP)");
            h.execute("INSERT INTO lights (id, colour) VALUES ('a', 'red')");
        });
    }

    @Test
    void onlyTheMovesOfTheTableAreAllowed() {
        assertThat(MACHINE.allowed(Light.RED, Light.GREEN)).isTrue();
        assertThat(MACHINE.allowed(Light.RED, Light.AMBER)).isFalse();
        assertThat(MACHINE.allowed(Light.GREEN, Light.RED)).isFalse();
        assertThatThrownBy(() -> MACHINE.check(Light.RED, Light.AMBER))
                .isInstanceOf(IllegalStateException.class).hasMessage("illegal light transition red → amber");
    }

    @Test
    void everyStateNeedsItsRow() {
        assertThatThrownBy(() -> StateMachine.builder(Light.class, "light", Light::label).from(Light.RED, Light.GREEN).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("GREEN");
    }

    @Test
    void groupsBecomeTheirStoredLabels() {
        assertThat(MACHINE.labels(EnumSet.of(Light.AMBER, Light.RED))).containsExactly("red", "amber");
    }

    @Test
    void aStoredMoveHappensOnlyFromTheExpectedStateAndRunsItsHookThen() {
        AtomicInteger hooks = new AtomicInteger();
        boolean moved = jdbi.withHandle(h -> lights.move(h, "a", Light.RED, Light.GREEN, "changed_at = :now", now,
                x -> hooks.incrementAndGet()));
        assertThat(moved).isTrue();
        assertThat(hooks).hasValue(1);
        assertThat(colour()).isEqualTo("green");
        Instant changedAt = jdbi.withHandle(h -> h.createQuery("SELECT changed_at FROM lights").mapTo(Instant.class).one());
        assertThat(changedAt).isEqualTo(now);

        // another actor moved it first: no move, no hook
        jdbi.useHandle(h -> h.execute("UPDATE lights SET colour = 'amber'"));
        boolean again = jdbi.withHandle(h -> lights.move(h, "a", Light.GREEN, Light.AMBER, "", now, x -> hooks.incrementAndGet()));
        assertThat(again).isFalse();
        assertThat(hooks).hasValue(1);
    }

    @Test
    void anIllegalStoredMoveIsRefusedBeforeTheUpdate() {
        AtomicInteger hooks = new AtomicInteger();
        assertThatThrownBy(() -> jdbi.useHandle(h -> lights.move(h, "a", Light.RED, Light.AMBER, "", now,
                x -> hooks.incrementAndGet()))).isInstanceOf(IllegalStateException.class);
        assertThat(colour()).isEqualTo("red");
        assertThat(hooks).hasValue(0);
    }

    @Test
    void aMoveToAStateTakesRowsFromEachOfItsPredecessorsAndNoOthers() {
        StateMachine<Light> anyToRed = StateMachine.builder(Light.class, "light", Light::label)
                .from(Light.RED)
                .from(Light.GREEN, Light.RED)
                .from(Light.AMBER, Light.RED)
                .build();
        assertThat(anyToRed.predecessors(Light.RED)).containsExactly(Light.GREEN, Light.AMBER);
        jdbi.useHandle(h -> h.execute("INSERT INTO lights (id, colour) VALUES ('b', 'green'), ('c', 'amber'), ('d', 'green')"));
        int moved = jdbi.withHandle(h -> anyToRed.stored("lights", "colour")
                .moveTo(h, Light.RED, "changed_at = :now", "id <> :spared").bind("now", now).bind("spared", "d").execute());
        assertThat(moved).isEqualTo(2);
        List<String> rows = jdbi.withHandle(h -> h.createQuery("SELECT id || '=' || colour FROM lights ORDER BY id")
                .mapTo(String.class).list());
        assertThat(rows).containsExactly("a=red", "b=red", "c=red", "d=green");
        assertThatThrownBy(() -> jdbi.useHandle(h -> anyToRed.stored("lights", "colour").moveTo(h, Light.GREEN, "", "")))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("no light state may move to green");
    }

    private String colour() {
        return jdbi.withHandle(h -> h.createQuery("SELECT colour FROM lights WHERE id = 'a'").mapTo(String.class).one());
    }
}
