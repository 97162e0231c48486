package dev.slipway.isolation;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Runs cells as plain child processes of the server: no identity, file, network or resource confinement. */
public final class Unconfined implements Confinement {
    private final String setsid;
    /** Why the sandbox is not used: null when the operator turned it off ({@code --isolation=none}). */
    private final SandboxProblem problem;

    public Unconfined() {
        this(null);
    }

    /** @param problem why there is no sandbox: this server then serves only its first account ({@link AccountAdmission}) */
    Unconfined(SandboxProblem problem) {
        this.setsid = SandboxTools.find("setsid").map(Object::toString).orElse("setsid");
        this.problem = problem;
    }

    @Override
    public Confined start(Cell cell, Path output) throws IOException {
        if (cell.rootfs() != null) throw new IOException("an image runs only in the sandbox (its root file system as the cell's /)");
        if (!cell.mounts().isEmpty()) throw new IOException("a volume is mounted only in the sandbox (at its path in the cell)");
        List<String> argv = new ArrayList<>();
        if (cell.ownSession()) argv.add(setsid);
        argv.addAll(cell.argv());
        ProcessBuilder pb = new ProcessBuilder(argv).directory(cell.workDir().toFile());
        pb.environment().clear();
        pb.environment().putAll(cell.env());
        pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        if (output != null) {
            pb.redirectOutput(ProcessBuilder.Redirect.appendTo(output.toFile()));
            pb.redirectError(ProcessBuilder.Redirect.appendTo(output.toFile()));
        }
        Process p = pb.start();
        return new Confined(p, () -> {}, () -> false, cell.limits());
    }

    @Override
    public Optional<Confined> adopt(Cell cell, long pid) {
        return ProcessHandle.of(pid).filter(ProcessHandle::isAlive)
                .map(h -> Confined.adopted(h, () -> {}, () -> false, cell.limits(), java.util.OptionalInt::empty));
    }

    @Override
    public boolean isolated() {
        return false;
    }

    @Override
    public String summary() {
        return "apps are NOT isolated: they run as the server's user"
                + (problem == null ? " (--isolation=none)" : " (no working sandbox: " + problem.part() + ": " + problem.detail() + ")");
    }

    @Override
    public Optional<SandboxProblem> missingSandbox() {
        return Optional.ofNullable(problem);
    }

    @Override
    public String warning() {
        return problem == null ? NOT_ISOLATED : problem.warning();
    }
}
