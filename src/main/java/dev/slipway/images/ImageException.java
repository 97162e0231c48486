package dev.slipway.images;

/** An image could not be made or pushed; the message says why and is shown in the deployment's log. */
public final class ImageException extends RuntimeException {
    public ImageException(String message, Throwable cause) {
        super(message, cause);
    }
}
