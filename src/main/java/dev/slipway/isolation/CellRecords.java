package dev.slipway.isolation;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What an app's cell holds outside its processes (its network's handles and pasta), kept in the run dir as
 * {@code <cell>.cell} while it runs, so that the next run of the server can adopt the cell and, once it ends,
 * remove all of it. Build steps have none: they never outlive the server.
 */
final class CellRecords {
    private static final Logger LOG = LoggerFactory.getLogger(CellRecords.class);
    private static final String SUFFIX = ".cell";
    private static final String STATUS_SUFFIX = ".status";
    private static final Pattern EXIT_CODE = Pattern.compile("\"exit-code\"\\s*:\\s*(\\d+)");

    private final Path runDir;

    CellRecords(Path runDir) {
        this.runDir = runDir;
    }

    void write(String cell, CellNetwork network) throws IOException {
        Properties p = new Properties();
        p.setProperty("net", network.handle().toString());
        p.setProperty("owner", network.owner().toString());
        p.setProperty("pasta", network.pastaPid().toString());
        p.setProperty("port", Integer.toString(network.port()));
        p.setProperty("forwards", String.join(",", network.forwards().stream().map(String::valueOf).toList()));
        Path tmp = file(cell + ".tmp");
        try (Writer w = Files.newBufferedWriter(tmp)) {
            p.store(w, null);
        }
        Files.move(tmp, file(cell), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    /** The network the cell of that name was started in, when its record is there and readable. */
    Optional<CellNetwork> read(String cell) {
        Path f = file(cell);
        if (!Files.isRegularFile(f)) return Optional.empty();
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(f)) {
            p.load(r);
            String forwards = p.getProperty("forwards", "");
            List<Integer> ports = forwards.isEmpty() ? List.of() : Arrays.stream(forwards.split(",")).map(Integer::valueOf).toList();
            Path net = inRunDir(p.getProperty("net"));
            Path owner = inRunDir(p.getProperty("owner"));
            Path pasta = inRunDir(p.getProperty("pasta"));
            return Optional.of(new CellNetwork(net, owner, pasta, Integer.parseInt(p.getProperty("port")), ports, System.nanoTime()));
        } catch (IOException | RuntimeException e) {
            LOG.warn("the record of cell {} cannot be read: {}", cell, e.toString());
            return Optional.empty();
        }
    }

    /** Where the cell's bubblewrap writes its JSON status: its child's pid, and once it ended its exit code. */
    Path statusFile(String cell) {
        return runDir.resolve(cell + STATUS_SUFFIX);
    }

    /** The exit code the cell's status file holds; empty while it runs, or when it has none. */
    OptionalInt exitCode(String cell) {
        try {
            for (String line : Files.readAllLines(statusFile(cell)).reversed()) {
                Matcher m = EXIT_CODE.matcher(line);
                if (m.find()) return OptionalInt.of(Integer.parseInt(m.group(1)));
            }
        } catch (IOException | RuntimeException e) {
            // none written, or not bubblewrap's: unknown
        }
        return OptionalInt.empty();
    }

    void delete(String cell) {
        try {
            Files.deleteIfExists(statusFile(cell));
            Files.deleteIfExists(file(cell));
        } catch (IOException e) {
            LOG.warn("could not delete the record of cell {}: {}", cell, e.toString());
        }
    }

    /** Names of the cells that have a record. */
    List<String> names() {
        List<String> out = new ArrayList<>();
        try (var entries = Files.list(runDir)) {
            for (Path p : entries.toList()) {
                String n = p.getFileName().toString();
                if (n.endsWith(SUFFIX)) out.add(n.substring(0, n.length() - SUFFIX.length()));
            }
        } catch (IOException e) {
            LOG.warn("could not list the cells' records in {}: {}", runDir, e.toString());
        }
        return out;
    }

    /** A record names files of this run dir only: one that points elsewhere was not written by a server. */
    private Path inRunDir(String path) {
        Path p = Path.of(path).toAbsolutePath().normalize();
        if (!runDir.toAbsolutePath().normalize().equals(p.getParent())) throw new IllegalArgumentException("not in the run dir: " + p);
        return p;
    }

    private Path file(String name) {
        return runDir.resolve(name.endsWith(".tmp") ? name : name + SUFFIX);
    }
}
