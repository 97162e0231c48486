package dev.slipway.testing;

import org.junit.jupiter.api.Tag;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A test class that runs after all the others, with nothing else running: it kills a server whose apps or builds run
 * in sandbox cells and starts it again, and in between any other server starting on this machine sweeps what the
 * dead one left once none of its cells runs, as a server does for a machine's dead servers (its builds' groups, a
 * cell that died meanwhile), or it times its restart against a bound that three busy test JVMs could break. A class
 * whose runtime host runs without the sandbox does not need it. The build runs every other class in three JVMs at
 * once.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag(Alone.TAG)
public @interface Alone {
    String TAG = "alone";
}
