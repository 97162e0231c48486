package dev.slipway.router;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class RouteTableTest {
    private final RouteTable routes = new RouteTable("localhost");
    private final Target prod = new Target.Upstream(4001);
    private final Target preview = new Target.Upstream(4002);

    @Test
    void productionByProjectNameIgnoringPortCaseAndTrailingDot() {
        routes.setProduction("shop", prod);
        assertThat(routes.resolve("shop.localhost")).contains(prod);
        assertThat(routes.resolve("shop.localhost:8081")).contains(prod);
        assertThat(routes.resolve("SHOP.LocalHost.:8081")).contains(prod);
    }

    @Test
    void deploymentByProjectAndShortId() {
        routes.setProduction("shop", prod);
        routes.setDeployment("shop", "a1b2c3d4", preview);
        assertThat(routes.resolve("shop-a1b2c3d4.localhost:8081")).contains(preview);
        assertThat(routes.resolve("shop-zzzzzzzz.localhost:8081")).isEmpty();
        routes.removeDeployment("shop", "a1b2c3d4");
        assertThat(routes.resolve("shop-a1b2c3d4.localhost")).isEmpty();
    }

    @Test
    void customDomainServesItsProjectsProduction() {
        routes.setDomain("www.example.com", "shop");
        assertThat(routes.resolve("www.example.com")).as("no production yet").isEmpty();
        routes.setProduction("shop", prod);
        assertThat(routes.resolve("WWW.example.com:80")).contains(prod);
        routes.setProduction("shop", preview); // one switch moves the custom domain too
        assertThat(routes.resolve("www.example.com")).contains(preview);
        routes.removeDomain("www.example.com");
        assertThat(routes.resolve("www.example.com")).isEmpty();
    }

    @Test
    void unknownOrMalformedHostsResolveToNothing() {
        routes.setProduction("shop", prod);
        assertThat(routes.resolve("nope.localhost")).isEmpty();
        assertThat(routes.resolve("localhost")).isEmpty();
        assertThat(routes.resolve("x.shop.localhost")).isEmpty();
        assertThat(routes.resolve("shop.example.org")).isEmpty();
        assertThat(routes.resolve("shop.localhostx")).isEmpty();
        assertThat(routes.resolve("")).isEmpty();
        assertThat(routes.resolve(null)).isEmpty();
        assertThat(routes.resolve("[::1]:8081")).isEmpty();
    }

    @Test
    void aDeploymentAddressWinsOverAProjectNamedLikeIt() {
        // another account's project named like the deployment's address must not take it over
        routes.setDeployment("shop", "a1b2c3d4", preview);
        routes.setProduction("shop-a1b2c3d4", prod);
        assertThat(routes.resolve("shop-a1b2c3d4.localhost")).contains(preview);
        routes.removeDeployment("shop", "a1b2c3d4");
        assertThat(routes.resolve("shop-a1b2c3d4.localhost")).contains(prod);
    }

    @Test
    void aCustomDomainAtOrUnderTheAppsDomainIsNeverSet() {
        routes.setProduction("shop", prod);
        routes.setProduction("evil", preview);
        long before = routes.version();
        for (String hijack : new String[]{"shop.localhost", "SHOP.localhost.", "localhost", "x.shop.localhost"}) {
            routes.setDomain(hijack, "evil");
        }
        assertThat(routes.version()).isEqualTo(before);
        assertThat(routes.resolve("shop.localhost")).contains(prod);
        assertThat(routes.resolve("localhost")).isEmpty();
        assertThat(routes.resolve("x.shop.localhost")).isEmpty();
        routes.setDomain("notlocalhost", "evil"); // a name that merely ends like it is not under it
        assertThat(routes.resolve("notlocalhost")).contains(preview);
    }

    @Test
    void removingAProjectRemovesEveryRouteOfIt() {
        routes.setProduction("shop", prod);
        routes.setDeployment("shop", "abc", preview);
        routes.setDomain("shop.example.com", "shop");
        routes.setProduction("blog", new Target.StaticSite(Path.of("/srv/blog")));
        routes.removeProject("shop");
        assertThat(routes.resolve("shop.localhost")).isEmpty();
        assertThat(routes.resolve("shop-abc.localhost")).isEmpty();
        assertThat(routes.resolve("shop.example.com")).isEmpty();
        assertThat(routes.resolve("blog.localhost")).contains(new Target.StaticSite(Path.of("/srv/blog")));
    }

    @Test
    void anotherAppsDomain() {
        RouteTable other = new RouteTable("apps.example.com");
        other.setProduction("shop", prod);
        assertThat(other.resolve("shop.apps.example.com")).contains(prod);
        assertThat(other.resolve("shop.localhost")).isEmpty();
    }

    @Test
    void aPoolOfReplicasLosesAStoppedMemberAndIsScaledInOneWrite() {
        Target pool = Target.app(Target.Upstream.LOOPBACK, java.util.List.of(4101, 4102, 4103));
        assertThat(pool).isInstanceOf(Target.Pool.class);
        assertThat(pool.upstreams()).extracting(Target.Upstream::port).containsExactly(4101, 4102, 4103);
        routes.setProduction("shop", pool);
        routes.setDeployment("shop", "a1b2c3d4", pool);
        routes.setProduction("other", prod);

        routes.forgetUpstream(4102); // a replica stopped: the others serve on
        Target two = Target.app(Target.Upstream.LOOPBACK, java.util.List.of(4101, 4103));
        assertThat(routes.resolve("shop.localhost")).contains(two);
        assertThat(routes.resolve("shop-a1b2c3d4.localhost")).contains(two);
        routes.forgetUpstream(4103);
        assertThat(routes.resolve("shop.localhost")).contains(new Target.Upstream(4101));

        routes.replaceTarget(new Target.Upstream(4101), two); // scaled up again
        assertThat(routes.resolve("shop.localhost")).contains(two);
        assertThat(routes.resolve("shop-a1b2c3d4.localhost")).contains(two);
        assertThat(routes.resolve("other.localhost")).as("another app's route is not touched").contains(prod);
        routes.replaceTarget(new Target.Upstream(4999), prod); // a route switched elsewhere meanwhile stays
        assertThat(routes.resolve("shop.localhost")).contains(two);
    }
}
