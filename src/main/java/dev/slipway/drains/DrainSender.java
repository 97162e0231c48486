package dev.slipway.drains;

import dev.slipway.net.AddressGuard;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeoutException;

/** Ships a drain's lines to its target, all or nothing: a throw means none of the batch may count as shipped. */
interface DrainSender extends AutoCloseable {
    void send(LogDrain drain, List<DrainLine> lines) throws IOException, AddressGuard.Refused, TimeoutException, InterruptedException;

    @Override
    void close();
}
