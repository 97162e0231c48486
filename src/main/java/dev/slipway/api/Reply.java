package dev.slipway.api;

/** What a creating POST answers: a status, an optional Location path, and the JSON body. */
public record Reply(int status, String location, Object body) {
    public static Reply created(String location, Object data) {
        return new Reply(201, location, new Envelope<>(data));
    }
}
