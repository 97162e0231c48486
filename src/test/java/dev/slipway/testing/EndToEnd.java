package dev.slipway.testing;

import org.junit.jupiter.api.Tag;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A test class that runs the real thing end to end: a server (in process or as its own JVM), an app in a
 * sandbox cell, a build, a browser. {@code ./mvnw test -Punit} runs every class without it.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Tag(EndToEnd.TAG)
public @interface EndToEnd {
    String TAG = "e2e";
}
