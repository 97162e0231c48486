package dev.slipway.router;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The parts of the route table wake-on-request uses: forgetting a stopped app's port, naming an address. */
class RouteTableWakeTest {
    private final RouteTable routes = new RouteTable("localhost");

    @Test
    void forgettingAStoppedPortDropsEveryRouteToItAndNoOther() {
        Target stopped = new Target.Upstream(4001), other = new Target.Upstream(4002);
        Target site = new Target.StaticSite(Path.of("/tmp/site"));
        routes.setDeployment("shop", "a1b2c3d4", stopped);
        routes.setDeployment("shop", "e5f6g7h8", other);
        routes.setDeployment("blog", "a1b2c3d4", stopped);
        routes.setProduction("docs", stopped);
        routes.setProduction("shop", other);
        routes.setProduction("site", site);

        routes.forgetUpstream(4001);

        assertThat(routes.resolve("shop-a1b2c3d4.localhost")).isEmpty();
        assertThat(routes.resolve("blog-a1b2c3d4.localhost")).isEmpty();
        assertThat(routes.resolve("docs.localhost")).isEmpty();
        assertThat(routes.resolve("shop-e5f6g7h8.localhost")).contains(other);
        assertThat(routes.resolve("shop.localhost")).contains(other);
        assertThat(routes.resolve("site.localhost")).contains(site);
    }

    @Test
    void anAddressIsALabelUnderTheAppsDomainOrACustomDomain() {
        assertThat(routes.address("Shop-A1B2C3D4.localhost:8081")).contains(new RouteTable.Address("shop-a1b2c3d4", null));
        assertThat(routes.address("shop.localhost.")).contains(new RouteTable.Address("shop", null));
        assertThat(routes.address("www.example.com")).contains(new RouteTable.Address(null, "www.example.com"));
        assertThat(routes.address("a.b.localhost")).isEmpty();
        assertThat(routes.address(".localhost")).isEmpty();
        assertThat(routes.address("")).isEmpty();
        assertThat(routes.address(null)).isEmpty();
    }
}
