package dev.slipway.deployments;

import dev.slipway.logs.Level;
import dev.slipway.logs.LogSink;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** A run's cancel requests, read from the store: checked between steps, and watched for during the build. */
final class CancelWatch {
    private static final Logger LOG = LoggerFactory.getLogger(CancelWatch.class);

    /** Ends a run that was asked to stop. */
    static final class Cancelled extends RuntimeException {
        Cancelled() {
            super("Deployment cancelled", null, false, false);
        }
    }

    private final DeploymentStore deployments;

    CancelWatch(DeploymentStore deployments) {
        this.deployments = deployments;
    }

    boolean requested(String id) {
        return deployments.find(id).map(Deployment::cancelRequested).orElse(false);
    }

    void check(String id) {
        if (requested(id)) throw new Cancelled();
    }

    /**
     * Kills the build's commands when a cancel is requested, until {@link Build#ended} (a failed step may be
     * followed by a fallback step). Neither thread is interrupted: an interrupt breaks the store
     * connection a virtual thread is using, and leaves the worker unable to take the next job.
     */
    Build duringBuild(String id, LogSink log) {
        CountDownLatch built = new CountDownLatch(1);
        Thread watcher = Thread.ofVirtual().name("cancel-watch-" + id).start(() -> {
            boolean cancelling = false;
            try {
                // polling the store for a cancel request, every 500 ms until the build ends
                while (!built.await(cancelling ? 100 : 500, TimeUnit.MILLISECONDS)) {
                    if (!cancelling && requested(id)) {
                        cancelling = true;
                        log.log(Level.WARNING, "Cancel requested: stopping the build");
                    }
                    if (cancelling) BuildProcesses.kill(id);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                LOG.warn("watching deployment {} for a cancel failed: {}", id, e.toString());
            }
        });
        return new Build(built, watcher);
    }

    record Build(CountDownLatch built, Thread watcher) {
        /** The build ended: the watch stops. */
        void ended() {
            built.countDown();
        }

        /** Waits a little for the watch to stop (it may be killing a command). */
        void join() throws InterruptedException {
            watcher.join(Duration.ofSeconds(5));
        }
    }
}
