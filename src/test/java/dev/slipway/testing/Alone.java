package dev.slipway.testing;

import org.junit.jupiter.api.Tag;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A test class that runs after all the others, with nothing else running: it kills a server (or a runtime host)
 * and starts it again, and in between any other server starting on this machine would sweep the dead one's
 * cells, as a server does for a machine's dead servers. The build runs every other class in two JVMs at once.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag(Alone.TAG)
public @interface Alone {
    String TAG = "alone";
}
