package dev.slipway.isolation;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/** Waits on processes that are not the server's children, through {@code /proc}. */
final class Await {
    private Await() {}

    /** True once the process is gone or a zombie; false when it still runs at the deadline. */
    static boolean gone(long pid, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Path stat = Path.of("/proc", Long.toString(pid), "stat");
        while (true) {
            try {
                String s = Files.readString(stat);
                int close = s.lastIndexOf(')');
                if (close > 0 && close + 2 < s.length() && s.charAt(close + 2) == 'Z') return true;
            } catch (IOException e) {
                return true;
            }
            if (System.nanoTime() - deadline >= 0) return false;
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }
}
