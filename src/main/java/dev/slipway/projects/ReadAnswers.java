package dev.slipway.projects;

import dev.slipway.core.Json;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The project read's last answer for each project, as JSON bytes, written again only when the read finds another
 * stored project (the project cache's copy is replaced on every change) or another certificate. Pipelines poll this
 * read, and writing its JSON was the largest part of its own work. Holds at most {@link #MAX} answers; a full memo
 * starts over.
 */
final class ReadAnswers {
    static final int MAX = 4096;

    private record Answer(ProjectStore.Shown shown, ProjectView.Certificate certificate, byte[] json) {}

    private final Map<String, Answer> answers = new ConcurrentHashMap<>();

    /** The JSON of {@code answer}, which must depend on nothing but {@code shown} and {@code certificate}. */
    byte[] of(ProjectStore.Shown shown, ProjectView.Certificate certificate, Supplier<Object> answer) {
        String id = shown.project().id();
        Answer last = answers.get(id);
        if (last != null && last.shown == shown && Objects.equals(last.certificate, certificate)) return last.json;
        byte[] json = Json.bytes(answer.get());
        if (answers.size() >= MAX) answers.clear();
        answers.put(id, new Answer(shown, certificate, json));
        return json;
    }
}
