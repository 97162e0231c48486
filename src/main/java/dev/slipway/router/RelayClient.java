package dev.slipway.router;

import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * One client connection of the relay and the exchange on it: reads a request head, and either relays the
 * request to an app (the head rewritten, the body's bytes copied as they come, then the response likewise) or
 * hands the whole connection to Jetty ({@link RelayTunnel}). One request at a time: a pipelined request waits
 * in the buffer until the response before it is written. Each side is read only while the other can take
 * what was read, so memory stays at two buffers whatever the bodies' sizes.
 */
final class RelayClient implements RelayLoop.Io {
    private static final long IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(UpstreamProxy.REQUEST_IDLE_MS);
    /** How long a closing connection's late bytes are read and dropped, so that its last answer is not reset. */
    private static final long LINGER_NANOS = TimeUnit.SECONDS.toNanos(2);
    private static final long CONNECT_NANOS = TimeUnit.MILLISECONDS.toNanos(WebSocketTunnel.CONNECT_TIMEOUT_MS);
    /** {@link #headStart} while no byte of the next head has come. */
    private static final long NO_HEAD = Long.MIN_VALUE;

    private enum Phase { HEAD, CONNECTING, EXCHANGE, LINGER, CLOSED }

    private static final byte[] HEAD = RelayHead.ascii("HEAD");
    /** Methods whose request may be sent twice (RFC 9110 §9.2.2). */
    private static final byte[][] IDEMPOTENT = {RelayHead.ascii("GET"), HEAD, RelayHead.ascii("OPTIONS"),
            RelayHead.ascii("TRACE"), RelayHead.ascii("PUT"), RelayHead.ascii("DELETE")};

    private final RelayLoop loop;
    private final SocketChannel channel;
    private final SelectionKey key;
    private final ByteBuffer in = ByteBuffer.allocateDirect(RelayLoop.BUFFER).limit(0);
    private final ByteBuffer[] gather = new ByteBuffer[2];
    private final Relay.Peer peer;
    private final Relay.HostMemo host = new Relay.HostMemo();
    private final Relay.Route route = new Relay.Route();
    private final RelayFraming requestFraming = new RelayFraming();
    private final RelayFraming responseFraming = new RelayFraming();
    private HeadWriter requestWriter;
    private HeadWriter responseWriter;
    private Phase phase = Phase.HEAD;
    private long lastActive;
    /** What this connection is counted under by the gate, until it closes. */
    private final long gateKey;
    /** When the connection opened (its first head) or the next head's first byte came; {@link #NO_HEAD}: none yet. */
    private long headStart;
    /** Bytes read from the client in exchanges: the body's progress. */
    private long bodyRead;
    /** The body-progress window: when it began ({@link #NO_HEAD}: none, the relay is not waiting for the client) and {@link #bodyRead} then. */
    private long bodyWindowStart = NO_HEAD;
    private long bodyWindowRead;

    private RelayUpstream up;
    private long connectStart;
    private int headLength;
    private boolean headRequest;
    private boolean closeAfter;
    private ByteBuffer requestOut;
    private int requestPass;
    private RelayFraming requestBody;
    private boolean requestDone;
    private ByteBuffer responseOut;
    private int responsePass;
    private RelayFraming responseBody;
    private boolean responseHead;
    private boolean responseStarted;
    private boolean upstreamReusable;
    private boolean upstreamEof;
    private boolean handedOff;
    private boolean clientEof;
    /** Where the request's head starts in {@link #in}, and whether connected() moved past it already. */
    private int requestStart;
    private boolean headConsumed;
    /** The exchange's app connection came from the pool: it may be one the app is closing. */
    private boolean reused;
    private boolean retried;
    /** Safe to send again (an idempotent method, no body or a length-framed one entirely in {@link #in}). */
    private boolean replayable;
    /** The request's bytes in {@link #in} are where they were when it started: no client read since. */
    private boolean inIntact;
    private long requestBodyLength;
    private Target.Upstream target;
    /** The pool {@link #target} is a member of, or null; and the members this request failed on (by {@link Balancer#bit}). */
    private Target.Pool pool;
    private int failedOn;
    /** When the exchange's head came, its answer's status (0: none yet) and body bytes written: what {@link RequestStats} gets. */
    private long exchangeStart;
    /** The exchange's request as its log line shows it, and when it came (epoch millis). */
    private String requestMethod, requestPath;
    private long requestAt;
    private int status;
    private long responseBytes;
    /** The pool member this exchange is counted under by the balancer, or 0. */
    private int countedPort;
    /** The rewritten request head, kept for a retry. */
    private ByteBuffer requestHeadOut;
    private boolean upstreamSentAny;

    RelayClient(RelayLoop loop, SocketChannel channel, long gateKey) throws IOException {
        this.loop = loop;
        this.channel = channel;
        this.gateKey = gateKey;
        channel.configureBlocking(false);
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
        this.peer = Relay.Peer.of(channel, loop.relay.gate().trusted());
        this.key = channel.register(loop.selector, SelectionKey.OP_READ, this);
        this.lastActive = loop.now;
        this.headStart = loop.now;
    }

    @Override
    public void ready(SelectionKey k) throws IOException {
        if (phase == Phase.LINGER) {
            in.clear();
            if (channel.read(in) < 0) close();
            in.clear().limit(0);
            return;
        }
        if (k.isReadable()) {
            if (phase != Phase.HEAD) inIntact = false; // a read may compact the buffer under the request
            int n = RelayLoop.fill(channel, in);
            if (n < 0) {
                if (phase != Phase.EXCHANGE || !requestDone) {
                    close();
                    return;
                }
                // the client is done sending, with its request complete: the answer still goes out
                clientEof = true;
                closeAfter = true;
            }
            lastActive = loop.now;
            if (phase == Phase.HEAD) {
                if (headStart == NO_HEAD && n > 0) headStart = loop.now;
                head();
            } else if (phase == Phase.EXCHANGE) {
                if (n > 0) bodyRead += n;
                pumpRequest();
            }
        }
        if (phase == Phase.EXCHANGE && k.isValid() && k.isWritable()) pumpResponse();
        interest();
    }

    /** Events of the app connection this exchange uses. */
    void upstreamReady(SelectionKey k) throws IOException {
        if (phase == Phase.CONNECTING) {
            if (!k.isConnectable()) return;
            try {
                up.channel.finishConnect();
            } catch (IOException e) {
                connectFailed();
                return;
            }
            connected();
        } else if (phase == Phase.EXCHANGE) {
            if (k.isReadable()) {
                int n = RelayLoop.fill(up.channel, up.in);
                if (n < 0) {
                    upstreamEof = true;
                } else {
                    lastActive = loop.now;
                    if (n > 0) upstreamSentAny = true;
                }
                pumpResponse();
            }
            if (phase == Phase.EXCHANGE && k.isValid() && k.isWritable()) pumpRequest();
        }
        interest();
    }

    private void head() throws IOException {
        while (phase == Phase.HEAD) {
            in.position(in.position() + RelayHead.leadingBlankLines(in));
            if (!in.hasRemaining()) return;
            RelayHead head = loop.requestHead;
            boolean relayed;
            try {
                if (!head.request(in, RelayHead.MAX_HEAD)) return;
                relayed = loop.relay.route(head, host, route);
            } catch (RelayHead.Malformed e) {
                reject(e.status);
                return;
            }
            if (!relayed) {
                toJetty();
                return;
            }
            start(head);
        }
    }

    private void start(RelayHead head) throws IOException {
        headLength = head.length;
        headRequest = head.same(head.firstStart, head.firstEnd, HEAD);
        closeAfter = route.close || clientEof;
        requestBody = route.chunked ? requestFraming.toChunked() : requestFraming.toLength(Math.max(route.length, 0));
        requestStart = in.position();
        headConsumed = false;
        requestBodyLength = route.replayLength();
        replayable = idempotent(head) && requestBodyLength >= 0 && in.remaining() - headLength >= requestBodyLength;
        inIntact = true;
        retried = false;
        upstreamSentAny = false;
        if (requestWriter == null) requestWriter = new HeadWriter(2048);
        requestOut = loop.relay.rewriteRequest(head, peer, requestWriter);
        requestHeadOut = requestOut;
        target = route.target;
        exchangeStart = loop.now;
        requestMethod = head.method();
        requestPath = head.pathWithoutQuery(RequestLog.MAX_PATH, loop.paths);
        status = 0;
        responseBytes = 0;
        pool = route.pool;
        failedOn = 0;
        count();
        requestPass = 0;
        requestDone = false;
        responseOut = null;
        responsePass = 0;
        responseBody = null;
        responseHead = false;
        responseStarted = false;
        upstreamEof = false;
        requestAt = loop.relay.recent().record(route.target.port());
        up = loop.pooled(route.target);
        reused = up != null;
        if (up != null) {
            up.attach(this);
            connected();
            return;
        }
        connect(route.target);
    }

    private void connect(Target.Upstream target) throws IOException {
        try {
            up = new RelayUpstream(loop, target, this);
        } catch (IOException e) {
            up = null;
            connectFailed();
            return;
        }
        if (up.connected()) {
            connected();
        } else {
            phase = Phase.CONNECTING;
            connectStart = loop.now;
        }
    }

    /**
     * Nothing reached the app: another instance of its pool takes the request when one can (nothing of it was sent, or it
     * may be sent again); otherwise Jetty answers as it always did (502, or 503 while the app restarts).
     */
    private void connectFailed() throws IOException {
        if (up != null) {
            up.discard();
            up = null;
        }
        if (!headConsumed || (inIntact && replayable)) {
            Target.Upstream other = otherMember();
            if (other != null) {
                resend(other);
                return;
            }
        }
        uncount();
        if (!headConsumed) {
            toJetty();
        } else if (inIntact) { // a retry: the request is still in the buffer, whole
            in.position(requestStart);
            toJetty();
        } else {
            badGateway();
        }
    }

    private void connected() throws IOException {
        phase = Phase.EXCHANGE;
        if (!headConsumed) {
            in.position(in.position() + headLength);
            headConsumed = true;
        }
        pumpRequest();
        if (phase == Phase.EXCHANGE) pumpResponse();
    }

    /** Methods whose request may be sent twice (RFC 9110 §9.2.2): the app cannot have acted on it in a way that matters. */
    private static boolean idempotent(RelayHead head) {
        for (byte[] m : IDEMPOTENT) if (head.same(head.firstStart, head.firstEnd, m)) return true;
        return false;
    }

    /**
     * The app connection failed before a byte of the answer: if it was a pooled one (the app may have closed
     * it as it went idle, just as this request was sent) and the request can be sent again, it is, once, on a
     * fresh connection, as nginx's {@code proxy_next_upstream error} does. Returns false when it cannot be.
     */
    private boolean retry(RelayUpstream failed) throws IOException {
        if (upstreamSentAny || responseStarted || responseHead || !replayable) return false;
        if (requestBodyLength > 0 && !inIntact) return false;
        Target.Upstream to;
        if (reused && !retried) {
            retried = true;
            to = target;
        } else {
            // the instance died under the request (a replica killed, crashed): another one answers it
            to = otherMember();
            if (to == null) return false;
        }
        reused = false;
        if (failed != null) failed.discard();
        up = null;
        resend(to);
        return true;
    }

    /** Sends the request again, whole, to {@code to}. */
    private void resend(Target.Upstream to) throws IOException {
        if (headConsumed && inIntact) in.position(requestStart + headLength);
        requestOut = requestHeadOut;
        requestOut.position(0);
        requestPass = 0;
        requestDone = false;
        requestBody = requestFraming.toLength(Math.max(requestBodyLength, 0));
        upstreamEof = false;
        target = to;
        count();
        connect(to);
    }

    /** Another member of the pool to try, the one that failed set aside; null when there is none. */
    private Target.Upstream otherMember() {
        if (pool == null) return null;
        failedOn |= Balancer.bit(pool, target);
        Target.Upstream next = loop.relay.balancer().pick(pool, failedOn);
        if (next != null) loop.relay.recent().record(next.port());
        return next;
    }

    /** Counts this exchange under its target when that is a pool's member. */
    private void count() {
        uncount();
        if (pool == null) return;
        countedPort = target.port();
        loop.relay.balancer().begin(countedPort);
    }

    private void uncount() {
        if (countedPort == 0) return;
        loop.relay.balancer().end(countedPort);
        countedPort = 0;
    }

    /** Client → app: the rewritten head, then the body's bytes as far as they belong to this request. */
    private void pumpRequest() throws IOException {
        while (phase == Phase.EXCHANGE && !requestDone) {
            // body bytes read with the head go out with it, in one writev
            if (requestPass == 0 && !requestBody.done() && in.hasRemaining()) {
                try {
                    requestPass = requestBody.scan(in, in.position(), in.limit());
                } catch (RelayFraming.Malformed e) {
                    close(); // part of the request may have reached the app already: all that is left is to cut both
                    return;
                }
            }
            if ((requestOut != null && requestOut.hasRemaining()) || requestPass > 0) {
                int written;
                try {
                    written = write(up.channel, requestOut, in, requestPass);
                } catch (IOException e) { // the app's side is gone (reset, broken pipe)
                    RelayUpstream failed = up;
                    failed.discard();
                    up = null;
                    if (!retry(failed)) badGateway();
                    return;
                }
                requestPass -= written;
                if ((requestOut != null && requestOut.hasRemaining()) || requestPass > 0) return;
                requestOut = null;
            }
            if (requestBody.done()) {
                requestDone = true;
                return;
            }
            if (!in.hasRemaining()) return;
        }
    }

    /** App → client: interim heads, the rewritten head, then the body's bytes as they come. */
    private void pumpResponse() throws IOException {
        ByteBuffer upIn = up.in;
        while (phase == Phase.EXCHANGE) {
            if ((responseOut != null && responseOut.hasRemaining()) || responsePass > 0) {
                int body = write(channel, responseOut, upIn, responsePass);
                responsePass -= body;
                responseBytes += body;
                responseStarted = true;
                if ((responseOut != null && responseOut.hasRemaining()) || responsePass > 0) return;
                responseOut = null;
            }
            if (!responseHead) {
                RelayHead head = loop.responseHead;
                try {
                    if (!head.response(upIn, upIn.capacity())) {
                        if (upstreamEof && !retry(up)) badGateway();
                        return;
                    }
                    upIn.position(upIn.position() + head.length);
                    responseOut = response(head);
                    // the body bytes read with the head go out with it: one writev, not a writev and a write
                    if (responseHead && !responseBody.done() && upIn.hasRemaining()) {
                        responsePass = responseBody.scan(upIn, upIn.position(), upIn.limit());
                    }
                } catch (RelayHead.Malformed e) {
                    badGateway();
                    return;
                } catch (RelayFraming.Malformed e) {
                    close();
                    return;
                }
                continue;
            }
            if (responseBody.done() || (responseBody.untilClosed() && upstreamEof && !upIn.hasRemaining())) {
                finish();
                return;
            }
            if (!upIn.hasRemaining()) {
                if (upstreamEof) close(); // the app failed mid-response: nothing to say but to cut the connection
                return;
            }
            try {
                responsePass = responseBody.scan(upIn, upIn.position(), upIn.limit());
            } catch (RelayFraming.Malformed e) {
                close();
                return;
            }
        }
    }

    /** The response head to send on, or an interim (1xx) one, after which another head follows. */
    private ByteBuffer response(RelayHead head) throws RelayHead.Malformed {
        int status = head.status();
        this.status = status;
        if (status == 101) throw new RelayHead.Malformed(502, "an upgrade nobody asked for");
        if (responseWriter == null) responseWriter = new HeadWriter(2048);
        if (status < 200) return loop.relay.rewriteResponse(head, false, responseWriter);
        responseHead = true;
        upstreamReusable = head.same(head.firstStart, head.firstEnd, Relay.HTTP11) && !head.connectionHas(Relay.CLOSE);
        if (headRequest || status == 204 || status == 304) {
            responseBody = responseFraming.toNone();
        } else if (head.count(RelayHead.TRANSFER_ENCODING) > 0) {
            int te = head.first(RelayHead.TRANSFER_ENCODING);
            int end = head.valueEnd[te];
            if (head.count(RelayHead.TRANSFER_ENCODING) == 1 && end - head.valueStart[te] >= 7 && head.equalsLower(end - 7, Relay.CHUNKED)) {
                responseBody = responseFraming.toChunked();
            } else {
                responseBody = responseFraming.toUntilClose();
            }
        } else {
            long length = head.contentLength(502);
            responseBody = length < 0 ? responseFraming.toUntilClose() : responseFraming.toLength(length);
        }
        if (responseBody.untilClosed()) {
            closeAfter = true;
            upstreamReusable = false;
        }
        if (!requestDone) closeAfter = true; // an early answer: the rest of the request is not read
        return loop.relay.rewriteResponse(head, closeAfter, responseWriter);
    }

    /** The exchange ended with this status: counted, and a line in the request log. */
    private void served(int answered) {
        RecentRequests recent = loop.relay.recent();
        if (!recent.measured()) return;
        long nanos = loop.now - exchangeStart;
        recent.stats().record(target.port(), answered, responseBytes, nanos);
        RequestLog log = recent.log();
        if (log.admits(target.port(), requestAt, answered)) {
            log.record(new RequestLog.Line(requestAt, target.port(), requestMethod, requestPath, answered, nanos / 1000,
                    responseBytes, peer.clientText()));
        }
    }

    /** The response was written in full. */
    private void finish() throws IOException {
        uncount();
        served(status);
        RelayUpstream u = up;
        up = null;
        if (upstreamReusable && requestDone && !upstreamEof && !u.in.hasRemaining()) loop.release(u);
        else u.discard();
        if (closeAfter || !requestDone) {
            linger();
            return;
        }
        phase = Phase.HEAD;
        lastActive = loop.now;
        bodyWindowStart = NO_HEAD;
        headStart = in.hasRemaining() ? loop.now : NO_HEAD;
        head(); // a pipelined request may be waiting
    }

    /** Writes {@code head} then {@code pass} bytes of {@code body} in one call; returns the body bytes written. */
    private int write(SocketChannel to, ByteBuffer head, ByteBuffer body, int pass) throws IOException {
        int limit = body.limit();
        int start = body.position();
        body.limit(start + pass);
        try {
            if (head != null && head.hasRemaining()) {
                gather[0] = head;
                gather[1] = body;
                to.write(gather);
            } else if (pass > 0) {
                to.write(body);
            }
        } finally {
            body.limit(limit);
            gather[0] = null;
            gather[1] = null;
        }
        lastActive = loop.now;
        return body.position() - start;
    }

    private void interest() {
        if (phase == Phase.CLOSED || !key.isValid()) return;
        int client = 0;
        int upstream = 0;
        switch (phase) {
            case HEAD, LINGER -> client = SelectionKey.OP_READ;
            case CONNECTING -> upstream = SelectionKey.OP_CONNECT;
            case EXCHANGE -> {
                boolean requestPending = (requestOut != null && requestOut.hasRemaining()) || requestPass > 0;
                boolean responsePending = (responseOut != null && responseOut.hasRemaining()) || responsePass > 0;
                // read on while the app answers (a pipelined request waits in the buffer): turning reading off
                // and on again for each request would cost two epoll_ctl calls
                if (!requestPending && !clientEof && (in.position() > 0 || in.limit() < in.capacity())) client |= SelectionKey.OP_READ;
                if (requestPending) upstream |= SelectionKey.OP_WRITE;
                if (responsePending) client |= SelectionKey.OP_WRITE;
                else if (!upstreamEof) upstream |= SelectionKey.OP_READ;
            }
            default -> { }
        }
        key.interestOps(client);
        if (up != null && up.key.isValid()) up.key.interestOps(upstream);
    }

    /** Hands the connection, and every byte read on it so far, to Jetty. */
    private void toJetty() throws IOException {
        uncount();
        handedOff = true;
        if (up != null) {
            up.discard();
            up = null;
        }
        phase = Phase.CLOSED;
        new RelayTunnel(loop, channel, key, in, gateKey);
    }

    /** A malformed head: the status, and the connection closed; nothing reached an app. */
    private void reject(int status) {
        String reason = status == 431 ? "Request Header Fields Too Large" : "Bad Request";
        String body = status + " " + reason + "\n";
        answer(("HTTP/1.1 " + status + " " + reason + "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: "
                + body.length() + "\r\nConnection: close\r\n\r\n" + body).getBytes(StandardCharsets.ISO_8859_1));
    }

    /** A whole response of the relay's own, then the connection closed. */
    private void answer(byte[] response) {
        try {
            channel.write(ByteBuffer.wrap(response));
        } catch (IOException ignored) {
            // closing anyway
        }
        linger();
    }

    /** The app's connection failed (a reset, a write refused): as a bad answer. */
    void upstreamFailed() {
        RelayUpstream failed = up;
        up = null;
        try {
            if (retry(failed)) interest();
            else badGateway();
        } catch (IOException e) {
            close();
        }
    }

    /** The app's answer cannot be relayed: a 502 if the client has had nothing yet, else the cut. */
    private void badGateway() {
        if (target != null) served(responseStarted ? status : 502);
        if (!responseStarted) {
            String body = "502 Bad Gateway: the app did not answer with valid HTTP\n";
            String answer = "HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: "
                    + body.length() + "\r\nConnection: close\r\n\r\n" + body;
            try {
                channel.write(ByteBuffer.wrap(answer.getBytes(StandardCharsets.ISO_8859_1)));
            } catch (IOException ignored) {
                // closing anyway
            }
        }
        linger();
    }

    /**
     * Ends the connection after its last answer: the answer and a FIN go out, and whatever the client still
     * sends is read and dropped for a while, because closing a socket with unread input resets it, and a reset
     * can make the client lose the answer it had not read yet.
     */
    private void linger() {
        uncount();
        if (up != null) {
            up.discard();
            up = null;
        }
        phase = Phase.LINGER;
        lastActive = loop.now;
        try {
            channel.shutdownOutput();
        } catch (IOException e) {
            close();
            return;
        }
        if (key.isValid()) key.interestOps(SelectionKey.OP_READ);
    }

    @Override
    public void expire(long now) {
        if (phase == Phase.CONNECTING && now - connectStart > CONNECT_NANOS) {
            try {
                connectFailed();
            } catch (IOException e) {
                close();
            }
        } else if (phase == Phase.LINGER && now - lastActive > LINGER_NANOS) {
            close();
        } else if (phase == Phase.HEAD && headStart != NO_HEAD && now - headStart > loop.headNanos) {
            // a head that does not come whole in time: a 408 if part of it came, else the connection just ends
            if (in.hasRemaining()) answer(loop.relay.gate().timeout());
            else close();
        } else if (phase == Phase.EXCHANGE && slowBody(now)) {
            if (!responseStarted) answer(loop.relay.gate().timeout());
            else close();
        } else if (phase != Phase.CLOSED && now - lastActive > IDLE_NANOS) {
            close();
        }
    }

    /**
     * Whether the request's body has come slower than the minimum rate over the last window (the head
     * timeout) of waiting for it. Only time the relay waits for the client counts: not while the app is slow to
     * take what was read, nor once the body is whole.
     */
    private boolean slowBody(long now) {
        long rate = loop.relay.gate().limits().bodyMinRate();
        boolean waiting = !requestDone && !clientEof && requestPass == 0 && (requestOut == null || !requestOut.hasRemaining());
        if (rate == 0 || !waiting) {
            bodyWindowStart = NO_HEAD;
            return false;
        }
        if (bodyWindowStart == NO_HEAD) {
            bodyWindowStart = now;
            bodyWindowRead = bodyRead;
            return false;
        }
        long elapsed = now - bodyWindowStart;
        if (elapsed < loop.headNanos) return false;
        if ((bodyRead - bodyWindowRead) * 1_000_000_000.0 < (double) rate * elapsed) return true;
        bodyWindowStart = now;
        bodyWindowRead = bodyRead;
        return false;
    }

    @Override
    public void close() {
        if (handedOff || (phase == Phase.CLOSED && !channel.isOpen())) return;
        phase = Phase.CLOSED;
        uncount();
        loop.relay.gate().close(gateKey);
        if (up != null) {
            RelayUpstream u = up;
            up = null;
            u.discard();
        }
        key.cancel();
        RelayLoop.closeQuietly(channel);
    }
}
