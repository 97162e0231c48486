package dev.slipway.plantstore;

import com.fasterxml.jackson.annotation.JsonInclude;

/** A plant as the sample API answers it: {@code name} and, when given, {@code tag}. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Plant(String name, String tag) {
}
