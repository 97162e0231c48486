package dev.slipway.isolation;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Predicate;

/**
 * A server without a working sandbox: its cells run unconfined, so it runs only those of the first account's
 * projects, and refuses every other (a build queued before, an app restarted after a restart).
 */
final class FirstAccountOnly implements Confinement {
    private final Confinement unconfined;
    private final Predicate<String> firstAccountsProject;
    private final String refusal;

    FirstAccountOnly(Confinement unconfined, Predicate<String> firstAccountsProject, String refusal) {
        this.unconfined = unconfined;
        this.firstAccountsProject = firstAccountsProject;
        this.refusal = refusal;
    }

    @Override
    public Confined start(Cell cell, Path output) throws IOException {
        if (!firstAccountsProject.test(cell.projectId())) throw new IOException(refusal);
        return unconfined.start(cell, output);
    }

    @Override
    public Optional<Confined> adopt(Cell cell, long pid) {
        return firstAccountsProject.test(cell.projectId()) ? unconfined.adopt(cell, pid) : Optional.empty();
    }

    @Override
    public OptionalInt reservePort() { return unconfined.reservePort(); }

    @Override
    public boolean isolated() { return unconfined.isolated(); }

    @Override
    public String summary() { return unconfined.summary(); }

    @Override
    public void handOver(Path dir, String projectId) throws IOException { unconfined.handOver(dir, projectId); }

    @Override
    public void sweep(Set<String> adopted) { unconfined.sweep(adopted); }

    @Override
    public void close() { unconfined.close(); }

    @Override
    public void leave() { unconfined.leave(); }

    @Override
    public Optional<SandboxProblem> missingSandbox() { return unconfined.missingSandbox(); }

    @Override
    public String warning() { return unconfined.warning(); }
}
