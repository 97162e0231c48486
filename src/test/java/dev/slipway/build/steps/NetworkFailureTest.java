package dev.slipway.build.steps;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The last lines of real failed installs: which failed on the network, and which for another reason. */
class NetworkFailureTest {
    @Test
    void npmsOwnCodeLineDecides() {
        // a registry's connection timed out while npm read a download
        assertThat(NetworkFailure.in(List.of("npm error code ETIMEDOUT", "npm error syscall read", "npm error errno -110",
                "npm error network read ETIMEDOUT", "npm error network This is a problem related to network connectivity.")))
                .contains("ETIMEDOUT");
        // a download cut short after its answer began
        assertThat(NetworkFailure.in(List.of("npm error code ECONNRESET", "npm error network aborted"))).contains("ECONNRESET");
        // a connection that could not be made: npm tried it three times over 70 s before it gave up
        assertThat(NetworkFailure.in(List.of("npm error code ECONNREFUSED", "npm error syscall connect", "npm error errno ECONNREFUSED",
                "npm error FetchError: request to http://127.0.0.1:4873/ms failed, reason: connect ECONNREFUSED 127.0.0.1:4873"))).isEmpty();
        assertThat(NetworkFailure.in(List.of("npm ERR! code EAI_AGAIN", "npm ERR! syscall getaddrinfo", "npm ERR! errno EAI_AGAIN"))).isEmpty();
        // a package that does not exist, and a lockfile out of date
        assertThat(NetworkFailure.in(List.of("npm error code E404", "npm error 404 Not Found - GET http://127.0.0.1:4873/nope"))).isEmpty();
        assertThat(NetworkFailure.in(List.of("npm error code EUSAGE", "npm error `npm ci` can only install packages when your "
                + "package.json and package-lock.json or npm-shrinkwrap.json are in sync."))).isEmpty();
        // a dependency's install script that failed to connect is its own failure, printed under npm's prefix
        assertThat(NetworkFailure.in(List.of("npm error code 1", "npm error path /app/node_modules/pg-setup",
                "npm error command failed", "npm error command sh -c node setup.js",
                "npm error Error: connect ECONNREFUSED 127.0.0.1:5432"))).isEmpty();
    }

    @Test
    void pnpmAndYarnNameTheSystemsCodeInTheirErrorLine() {
        assertThat(NetworkFailure.in(List.of(" ERR_PNPM_META_FETCH_FAIL  GET https://registry.npmjs.org/ms: request to "
                + "https://registry.npmjs.org/ms failed, reason: read ETIMEDOUT"))).contains("ETIMEDOUT");
        assertThat(NetworkFailure.in(List.of(" ERR_PNPM_META_FETCH_FAIL  GET https://registry.npmjs.org/ms: request to "
                + "https://registry.npmjs.org/ms failed, reason: connect ETIMEDOUT 104.16.3.35:443"))).as("pnpm tried it again itself")
                .isEmpty();
        assertThat(NetworkFailure.in(List.of("error An unexpected error occurred: \"https://registry.yarnpkg.com/ms/-/ms-2.1.3.tgz: "
                + "ESOCKETTIMEDOUT\".", "info If you think this is a bug, please open a bug report with the information provided in "
                + "\"/app/yarn-error.log\"."))).contains("ESOCKETTIMEDOUT");
        assertThat(NetworkFailure.in(List.of("➤ YN0001: │ RequestError: read ECONNRESET", "➤ YN0000: · Failed with errors in 3s 12ms")))
                .contains("ECONNRESET");
        assertThat(NetworkFailure.in(List.of(" ERR_PNPM_OUTDATED_LOCKFILE  Cannot install with \"frozen-lockfile\" because "
                + "pnpm-lock.yaml is not up to date with package.json"))).isEmpty();
        // an app's own output mentioning a code is not the package manager's failure
        assertThat(NetworkFailure.in(List.of("Error: connect ECONNREFUSED 127.0.0.1:6379", "    at TCPConnectWrap.afterConnect"))).isEmpty();
    }
}
