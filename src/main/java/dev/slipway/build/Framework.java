package dev.slipway.build;

import java.util.Arrays;
import java.util.Optional;

/** The frameworks Slipway builds (DESIGN §4), with their API names. */
public enum Framework {
    NEXTJS("nextjs"),
    REACT_VITE("react-vite"),
    NODE_EXPRESS("node-express"),
    PYTHON_FASTAPI("python-fastapi");

    private final String id;

    Framework(String id) {
        this.id = id;
    }

    public String id() { return id; }

    public boolean isNode() { return this != PYTHON_FASTAPI; }

    public static Optional<Framework> fromId(String id) {
        return Arrays.stream(values()).filter(f -> f.id.equals(id)).findFirst();
    }

    @Override
    public String toString() { return id; }
}
