package dev.slipway.operator;

import java.util.List;
import org.flywaydb.core.Flyway;
import org.slf4j.LoggerFactory;

/**
 * Loads and initialises, on a second thread, the big libraries a server start needs, while the
 * main thread parses the command line and opens the store: on a cold JVM their class loading,
 * not our code, is most of the start-up time.
 */
public final class WarmUp {
    private static final List<String> CLASSES = List.of(
            "org.flywaydb.core.Flyway",
            "org.flywaydb.core.internal.command.DbMigrate",
            "com.zaxxer.hikari.HikariDataSource",
            "org.jdbi.v3.core.Jdbi",
            "org.eclipse.jetty.server.Server",
            "org.eclipse.jetty.server.ServerConnector",
            "org.eclipse.jetty.util.thread.QueuedThreadPool",
            "org.eclipse.jetty.http.MimeTypes",
            "org.eclipse.jetty.ee10.servlet.ServletContextHandler",
            "io.javalin.Javalin",
            "com.fasterxml.jackson.databind.ObjectMapper",
            "org.bouncycastle.crypto.generators.Argon2BytesGenerator");

    private WarmUp() {}

    public static void start() {
        Thread.ofPlatform().daemon().name("warm-up").start(() -> {
            LoggerFactory.getILoggerFactory(); // reads the logging configuration
            try {
                Flyway.configure(); // loads Flyway's plugins, which its first configuration does
            } catch (Throwable ignored) {
                // only a head start
            }
            ClassLoader loader = WarmUp.class.getClassLoader();
            for (String name : CLASSES) {
                try {
                    Class.forName(name, true, loader);
                } catch (Throwable ignored) {
                    // only a head start: the main thread loads what it needs anyway
                }
            }
        });
    }
}
