package dev.slipway.projects;

import java.util.Optional;

/** Runs a project's production as many instances of web as its {@code replicas} says, without a rebuild. */
public interface Scaling {
    Scaling NONE = new Scaling() {
        @Override
        public Optional<String> refusal(Project project, int replicas) {
            return Optional.empty();
        }

        @Override
        public void changed(String projectId) {
        }
    };

    /** Why the project's production cannot run as {@code replicas} instances (a volume not shared), or empty. */
    Optional<String> refusal(Project project, int replicas);

    /** Its {@code replicas} changed: production is scaled to it, in the background, on the server that runs it. */
    void changed(String projectId);
}
