package dev.slipway.plantstore;

/** The plant-store's own error shape: a flat {@code {error: <int32>, message}} (spec Errors item 3). */
public final class PlantError extends RuntimeException {
    private final int status;

    public PlantError(int status, String message) {
        super(message, null, false, false);
        this.status = status;
    }

    public static PlantError badRequest(String message) {
        return new PlantError(400, message);
    }

    public int status() { return status; }

    public record Body(int error, String message) {}

    public Body body() {
        return new Body(status, getMessage());
    }
}
