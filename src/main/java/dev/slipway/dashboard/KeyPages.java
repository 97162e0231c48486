package dev.slipway.dashboard;

import dev.slipway.api.ApiException;
import dev.slipway.auth.ApiKey;
import dev.slipway.auth.Authenticator;
import dev.slipway.auth.IssuedKey;
import dev.slipway.auth.KeyStore;
import dev.slipway.dashboard.Html.Safe;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;

import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/** Settings → API keys: list, create (shown once), revoke (after a confirmation). */
public final class KeyPages {
    static final int MAX_NAME = 100;

    private final KeyStore keys;
    private final Authenticator authenticator;
    private final Function<String, Optional<String>> refusal;

    /** @param refusal why no key may be made for an account (by id) now; empty when one may */
    public KeyPages(KeyStore keys, Authenticator authenticator, Function<String, Optional<String>> refusal) {
        this.keys = keys;
        this.authenticator = authenticator;
        this.refusal = refusal;
    }

    public void list(Context ctx, Viewer viewer) {
        String revoked = ctx.queryParam("revoked");
        String notice = null;
        if (revoked != null) {
            notice = keys.find(revoked).filter(k -> k.accountId().equals(viewer.accountId()) && k.revokedAt() != null)
                    .map(k -> "Key “" + k.name() + "” (" + k.prefix() + "…) is revoked: the API refuses it from now on.")
                    .orElse(null);
        }
        render(ctx, 200, viewer, null, null, "", notice);
    }

    public void create(Context ctx, Viewer viewer, Form form) {
        String name = form.get("name") == null ? "" : form.get("name").trim();
        String problem = name.isEmpty() ? "Give the key a name, e.g. ci or laptop."
                : name.length() > MAX_NAME ? "The name must be at most " + MAX_NAME + " characters."
                : name.chars().anyMatch(Character::isISOControl) ? "The name cannot contain control characters." : null;
        if (problem != null) {
            render(ctx, 400, viewer, problem, null, name, null);
            return;
        }
        Optional<String> refused = refusal.apply(viewer.accountId());
        if (refused.isPresent()) {
            render(ctx, 403, viewer, refused.get(), null, name, null);
            return;
        }
        IssuedKey issued = keys.create(viewer.accountId(), name);
        render(ctx, 201, viewer, null, issued, "", null);
    }

    public void confirmRevoke(Context ctx, Viewer viewer) {
        ApiKey key = owned(ctx, viewer);
        if (key.revokedAt() != null) {
            ctx.redirect("/dashboard/settings/api-keys", HttpStatus.FOUND);
            return;
        }
        Layout.settings(ctx, 200, viewer, "Revoke key", Html.fmt("""
                <section class="card danger">
                  <h2>Revoke “%s”?</h2>
                  <p>Key <code>%s…</code>, created %s, last used %s.</p>
                  <p>Every request made with this key is refused from the moment you revoke it. This cannot be undone.</p>
                  <form method="post" action="/dashboard/settings/api-keys/%s/revoke" class="actions">
                    %s
                    <button type="submit" class="danger">Revoke key</button>
                    <a href="/dashboard/settings/api-keys" class="button">Cancel</a>
                  </form>
                </section>""", key.name(), key.prefix(), Format.time(key.createdAt()),
                Format.timeOr(key.lastUsedAt(), "never"), key.id(), Layout.csrf(viewer)));
    }

    public void revoke(Context ctx, Viewer viewer, Form form) {
        ApiKey key = owned(ctx, viewer);
        keys.revoke(key.id());
        authenticator.forget(key.id());
        ctx.redirect("/dashboard/settings/api-keys?revoked=" + key.id(), HttpStatus.SEE_OTHER);
    }

    /** Another account's key is "not found", exactly like a key that does not exist. */
    private ApiKey owned(Context ctx, Viewer viewer) {
        String id = ctx.pathParam("key_id");
        return keys.find(id).filter(k -> k.accountId().equals(viewer.accountId()))
                .orElseThrow(() -> ApiException.notFound("There is no API key " + id + " in your account."));
    }

    private void render(Context ctx, int status, Viewer viewer, String error, IssuedKey issued, String name, String notice) {
        List<ApiKey> all = keys.list(viewer.accountId()).reversed();
        Safe created = issued == null ? Html.EMPTY : Html.fmt("""
                <section class="card new-key" aria-labelledby="new-key-title">
                  <h2 id="new-key-title">Key “%s” created</h2>
                  <p>Copy it now: it is shown only this once. Slipway keeps only a hash of it.</p>
                  <div class="copy">
                    <label for="new-key" class="visually-hidden">The new API key</label>
                    <input id="new-key" type="text" readonly value="%s" spellcheck="false" autocomplete="off">
                    <button type="button" data-copy="new-key">Copy</button>
                  </div>
                  <p class="muted">Use it as <code>Authorization: Bearer &lt;key&gt;</code>.</p>
                </section>""", issued.key().name(), issued.secret());
        Safe table = all.isEmpty()
                ? Html.fmt("<p class=\"empty\">This account has no API keys yet. Create one below to use the API.</p>")
                : Html.fmt("""
                <div class="table-wrap">
                <table>
                  <caption class="visually-hidden">API keys of %s</caption>
                  <thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col" class="wide">Created</th>
                  <th scope="col">Last used</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
                  <tbody>%s</tbody>
                </table>
                </div>""", viewer.account().name(), Html.each(all, KeyPages::row));
        Layout.settings(ctx, status, viewer, "API keys", Html.fmt("""
                %s%s
                <h2>API keys</h2>
                <p class="muted">Keys let programs use the Slipway API as this account.</p>
                %s
                <section class="card">
                  <h2>New key</h2>
                  %s
                  <form method="post" action="/dashboard/settings/api-keys" class="inline">
                    %s
                    <label for="key-name">Name</label>
                    <input id="key-name" name="name" type="text" maxlength="100" required placeholder="e.g. ci" value="%s"%s>
                    <button type="submit" class="primary">New key</button>
                  </form>
                </section>""", Layout.notice(notice), created, table, Layout.error(error), Layout.csrf(viewer), name,
                error == null ? Html.EMPTY : new Safe(" aria-invalid=\"true\"")));
    }

    private static Safe row(ApiKey k) {
        Safe action = k.revokedAt() != null
                ? Html.fmt("<span class=\"badge badge-revoked\">revoked</span>")
                : Html.fmt("<a class=\"button danger\" href=\"/dashboard/settings/api-keys/%s/revoke\" aria-label=\"Revoke %s\">Revoke</a>",
                        k.id(), k.name());
        return Html.fmt("<tr id=\"%s\"%s><td>%s</td><td><code class=\"nowrap\">%s…</code></td><td class=\"wide\">%s</td><td>%s</td><td>%s</td></tr>",
                k.id(), k.revokedAt() != null ? new Safe(" class=\"revoked\"") : Html.EMPTY, k.name(), k.prefix(),
                Format.time(k.createdAt()), Format.timeOr(k.lastUsedAt(), "never"), action);
    }
}
