package dev.slipway.runtime.local;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The line a start-up crash's reason leads with, from the output of Node, Python and Java as they print it. */
class CrashReasonTest {
    @Test
    void nodesMissingModuleIsFoundAboveItsStackAndItsErrorObject() {
        List<String> node = List.of("node:internal/modules/cjs/loader:1228", "  throw err;", "  ^", "",
                "Error: Cannot find module 'dayjs'", "Require stack:", "- /srv/app/server.js",
                "    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)",
                "    at Module._load (node:internal/modules/cjs/loader:1051:27)", "    at require (node:internal/modules/helpers:177:18)",
                "    at Object.<anonymous> (/srv/app/server.js:1:15)", "{", "  code: 'MODULE_NOT_FOUND',",
                "  requireStack: [ '/srv/app/server.js' ]", "}", "", "Node.js v20.20.2");
        assertThat(LocalProcessRuntime.errorLine(node)).contains("Error: Cannot find module 'dayjs'");
    }

    @Test
    void pythonsIsItsLastLineAndJavasItsRootCause() {
        assertThat(LocalProcessRuntime.errorLine(List.of("Traceback (most recent call last):", "  File \"/srv/app/main.py\", line 1, in <module>",
                "    import fastapi_users", "ModuleNotFoundError: No module named 'fastapi_users'")))
                .contains("ModuleNotFoundError: No module named 'fastapi_users'");
        assertThat(LocalProcessRuntime.errorLine(List.of("Exception in thread \"main\" java.lang.IllegalStateException: no config",
                "\tat app.Main.main(Main.java:9)", "Caused by: java.io.FileNotFoundException: /etc/app.conf",
                "\t... 1 more"))).contains("Caused by: java.io.FileNotFoundException: /etc/app.conf");
    }

    @Test
    void outputWithoutAnErrorNameHasNone() {
        assertThat(LocalProcessRuntime.errorLine(List.of("fatal: missing configuration", "bye"))).isEmpty();
        assertThat(LocalProcessRuntime.errorLine(List.of())).isEmpty();
    }
}
