package dev.slipway.monitoring;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.core.ConsoleAppender;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;

/** Logback finds the set-up in code through the service loader (without it: DEBUG to stdout). */
class LogSetupTest {
    @Test
    void infoAndUpGoToStderrAndTheLibrariesSayOnlyWarnings() {
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        assertThat(root.getLevel()).isEqualTo(Level.INFO);
        var appender = (ConsoleAppender<?>) root.getAppender("STDERR");
        assertThat(appender).isNotNull();
        assertThat(appender.getTarget()).isEqualTo("System.err");
        for (String library : new String[] {"org.eclipse.jetty.server.Server", "com.zaxxer.hikari.HikariDataSource",
                "org.flywaydb.core.Flyway", "io.javalin.Javalin"}) {
            assertThat(context.getLogger(library).getEffectiveLevel()).as(library).isEqualTo(Level.WARN);
        }
        assertThat(context.getLogger("dev.slipway.server.Slipway").getEffectiveLevel()).isEqualTo(Level.INFO);
    }
}
