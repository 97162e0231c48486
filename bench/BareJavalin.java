// The API benchmark's baseline: a bare Javalin answering GET /hello with the server's Javalin settings (virtual threads,
// no banner), run on the server's JVM flags with the server's jar as its class path, so that what Slipway adds to a
// request shows as a ratio. Usage: java -cp target/slipway.jar bench/BareJavalin.java PORT
import io.javalin.Javalin;

public class BareJavalin {
    public static void main(String[] args) {
        Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.startup.showOldJavalinVersionWarning = false;
            config.concurrency.useVirtualThreads = true;
            config.http.responseBufferSize = 8192;
            config.routes.get("/hello", ctx -> ctx.result("hello"));
        }).start("127.0.0.1", Integer.parseInt(args[0]));
    }
}
