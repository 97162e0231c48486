package dev.slipway.runtime.local;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * The TCP ports a process and its descendants listen on, from Linux's /proc: their sockets' inodes
 * ({@code /proc/<pid>/fd}) matched against the LISTEN rows of their network namespace ({@code /proc/<pid>/net/tcp},
 * {@code tcp6}). Empty where /proc cannot be read; a process that exits meanwhile is skipped.
 */
final class ListeningPorts {
    private static final String LISTEN = "0A";

    private ListeningPorts() {}

    static Set<Integer> of(ProcessHandle root) {
        List<ProcessHandle> tree = new ArrayList<>();
        tree.add(root);
        try (Stream<ProcessHandle> descendants = root.descendants()) {
            descendants.forEach(tree::add);
        }
        Set<String> sockets = new HashSet<>();
        for (ProcessHandle p : tree) sockets.addAll(socketInodes(p.pid()));
        Set<Integer> ports = new TreeSet<>();
        if (sockets.isEmpty()) return ports;
        Set<String> namespaces = new HashSet<>();
        for (ProcessHandle p : tree) {
            String ns;
            try {
                ns = Files.readSymbolicLink(Path.of("/proc", Long.toString(p.pid()), "ns", "net")).toString();
            } catch (IOException | UnsupportedOperationException e) {
                continue;
            }
            if (!namespaces.add(ns)) continue;
            for (String table : List.of("tcp", "tcp6")) ports.addAll(listening(Path.of("/proc", Long.toString(p.pid()), "net", table), sockets));
        }
        return ports;
    }

    private static Set<String> socketInodes(long pid) {
        Set<String> out = new HashSet<>();
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "fd"))) {
            for (Path fd : fds) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[") && target.endsWith("]")) out.add(target.substring(8, target.length() - 1));
                } catch (IOException closed) {
                    // the descriptor closed meanwhile
                }
            }
        } catch (IOException | SecurityException gone) {
            // exited, or not ours to read
        }
        return out;
    }

    /** Ports of the table's LISTEN rows whose inode is one of {@code sockets}; a row is {@code sl local remote st … inode}. */
    static Set<Integer> listening(Path table, Set<String> sockets) {
        Set<Integer> out = new TreeSet<>();
        List<String> lines;
        try {
            lines = Files.readAllLines(table);
        } catch (IOException gone) {
            return out;
        }
        for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
            String[] cols = line.strip().split("\\s+");
            if (cols.length < 10 || !LISTEN.equals(cols[3]) || !sockets.contains(cols[9])) continue;
            String local = cols[1];
            try {
                out.add(Integer.parseInt(local.substring(local.lastIndexOf(':') + 1), 16));
            } catch (NumberFormatException | StringIndexOutOfBoundsException malformed) {
                // not a row of this format
            }
        }
        return out;
    }
}
