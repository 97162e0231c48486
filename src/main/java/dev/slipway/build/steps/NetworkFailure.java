package dev.slipway.build.steps;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether a package manager's install failed on the network: a registry's connection was reset, cut short or
 * timed out while it was read. npm retries a request that fails before its answer, but not a download cut short
 * after it, so one dropped connection fails the whole install.
 * <p>
 * npm names its own failure on a {@code code} line, which is trusted alone: a dependency's install script
 * that fails prints its output under npm's prefix too, with {@code code 1}. pnpm and Yarn name the system's
 * error code in their error line. A connection that could not be made (refused, timed out, a name that did not
 * resolve) is not one: each package manager already tried it again, with pauses, before it gave up (npm for
 * 70 s), and a registry that is down would only fail once more.
 */
final class NetworkFailure {
    private static final Set<String> CODES = Set.of("ETIMEDOUT", "ECONNRESET", "ECONNREFUSED", "ECONNABORTED", "EAI_AGAIN",
            "EPIPE", "ESOCKETTIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ENETDOWN", "ERR_SOCKET_TIMEOUT",
            "UND_ERR_SOCKET", "UND_ERR_CONNECT_TIMEOUT");
    private static final Pattern NPM_CODE = Pattern.compile("^npm (?:error|ERR!) code (\\S+)$");
    private static final Pattern OTHER_ERROR = Pattern.compile("^(?:\\s*ERR_PNPM_\\w+|error\\b|(?:➤ )?YN\\d{4}:)");
    private static final Pattern NPM_CONNECTING = Pattern.compile("^npm (?:error|ERR!) syscall (?:connect|getaddrinfo)$");
    private static final Pattern CODE_WORD = Pattern.compile("(\\b(?:connect|getaddrinfo) )?\\b(E[A-Z_]{3,}|UND_ERR_[A-Z_]+)\\b");

    private NetworkFailure() {}

    /** The system error code that made the install fail on the network, read from its last lines; empty: another cause. */
    static Optional<String> in(List<String> lastLines) {
        for (String line : lastLines) {
            Matcher npm = NPM_CODE.matcher(line.strip());
            if (!npm.matches()) continue;
            boolean connecting = lastLines.stream().anyMatch(l -> NPM_CONNECTING.matcher(l.strip()).matches());
            return CODES.contains(npm.group(1)) && !connecting ? Optional.of(npm.group(1)) : Optional.empty();
        }
        for (String line : lastLines) {
            if (!OTHER_ERROR.matcher(line).find()) continue;
            Matcher code = CODE_WORD.matcher(line);
            while (code.find()) {
                if (CODES.contains(code.group(2))) return code.group(1) == null ? Optional.of(code.group(2)) : Optional.empty();
            }
        }
        return Optional.empty();
    }
}
