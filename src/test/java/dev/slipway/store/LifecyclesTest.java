package dev.slipway.store;

import dev.slipway.databases.DatabaseState;
import dev.slipway.deployments.DeploymentStatus;
import dev.slipway.jobs.JobState;
import dev.slipway.migrations.MigrationStatus;
import dev.slipway.projects.DomainStatus;
import dev.slipway.tls.CertificateStatus;
import dev.slipway.webhooks.DeliveryState;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Walks the one transition table of every record with a status: each state is reachable from the first (the
 * state records are created in, or the enum's first), every state that is not final can end, and the guard
 * refuses exactly the moves the table leaves out.
 */
class LifecyclesTest {
    record Machine<S extends Enum<S>>(Class<S> type, StateMachine<S> machine, S initial) {
        @Override
        public String toString() {
            return type.getSimpleName();
        }
    }

    static Stream<Machine<?>> machines() {
        return Stream.of(
                new Machine<>(JobState.class, JobState.MACHINE, JobState.READY),
                new Machine<>(DeliveryState.class, DeliveryState.MACHINE, DeliveryState.PENDING),
                new Machine<>(CertificateStatus.class, CertificateStatus.MACHINE, CertificateStatus.PENDING),
                new Machine<>(DeploymentStatus.class, DeploymentStatus.MACHINE, DeploymentStatus.QUEUED),
                new Machine<>(MigrationStatus.class, MigrationStatus.MACHINE, MigrationStatus.PENDING),
                new Machine<>(DatabaseState.class, DatabaseState.MACHINE, DatabaseState.PROVISIONING),
                new Machine<>(DomainStatus.class, DomainStatus.MACHINE, DomainStatus.PENDING_VERIFICATION));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("machines")
    <S extends Enum<S>> void everyStateIsReachedAndTheGuardRefusesWhatTheTableLeavesOut(Machine<S> m) {
        StateMachine<S> machine = m.machine();
        Set<S> reached = EnumSet.of(m.initial());
        Deque<S> todo = new ArrayDeque<>(reached);
        while (!todo.isEmpty()) {
            S from = todo.pop();
            for (S to : m.type().getEnumConstants()) {
                if (machine.allowed(from, to) && reached.add(to)) todo.push(to);
            }
        }
        assertThat(reached).as("states reachable from " + m.initial()).containsExactlyInAnyOrder(m.type().getEnumConstants());

        for (S from : m.type().getEnumConstants()) {
            for (S to : m.type().getEnumConstants()) {
                if (machine.allowed(from, to)) {
                    machine.check(from, to);
                    assertThat(machine.predecessors(to)).contains(from);
                } else {
                    assertThatThrownBy(() -> machine.check(from, to)).isInstanceOf(IllegalStateException.class);
                    assertThat(machine.predecessors(to)).doesNotContain(from);
                }
            }
        }
    }
}
