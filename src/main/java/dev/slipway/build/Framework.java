package dev.slipway.build;

import java.util.Arrays;
import java.util.Optional;

/**
 * The kinds of app Slipway builds (DESIGN §4, docs/deploying.md "Frameworks"), with their API names. The seed's four
 * name what they name; {@code node}, {@code python} and {@code static} take every other Node server, Python
 * web app and static site.
 */
public enum Framework {
    NEXTJS("nextjs"),
    REACT_VITE("react-vite"),
    NODE_EXPRESS("node-express"),
    PYTHON_FASTAPI("python-fastapi"),
    NODE("node"),
    PYTHON("python"),
    STATIC("static"),
    /** Built from the app's Dockerfile into an OCI image, run as an image. */
    DOCKER("docker");

    private final String id;

    Framework(String id) {
        this.id = id;
    }

    public String id() { return id; }

    /** Runs as a Node process (a static site may be built with Node, but is served by the router). */
    public boolean isNodeServer() { return this == NEXTJS || this == NODE_EXPRESS || this == NODE; }

    public boolean isPython() { return this == PYTHON_FASTAPI || this == PYTHON; }

    public boolean isStatic() { return this == REACT_VITE || this == STATIC; }

    public static Optional<Framework> fromId(String id) {
        return Arrays.stream(values()).filter(f -> f.id.equals(id)).findFirst();
    }

    @Override
    public String toString() { return id; }
}
