package dev.slipway.runtime;

import dev.slipway.accounts.Tier;
import dev.slipway.api.Body;

/** The optional {@code instance_type} of a migration or deployment request, checked against the table and the tier. */
public final class InstanceTypeField {
    public static final String NAME = "instance_type";

    private InstanceTypeField() {}

    /** The type asked for, or null when none was; a problem on {@code body} when it is unknown or above the tier. */
    public static InstanceType read(Body body, Tier tier) {
        String label = body.string(NAME, false, 40, null, null);
        if (label == null) return null;
        var type = InstanceType.byLabel(label);
        if (type.isEmpty()) {
            body.problem(NAME, "must be one of " + String.join(", ", InstanceType.labels()));
            return null;
        }
        if (!type.get().allowedFor(tier)) {
            body.problem(NAME, "'" + label + "' is not available on the " + tier.label() + " tier (it allows "
                    + String.join(", ", InstanceType.labelsFor(tier)) + ")");
            return null;
        }
        return type.get();
    }
}
