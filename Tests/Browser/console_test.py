"""The web console (issue 21) in a real browser: Debian's chromium driven by Playwright, every page
checked by axe-core, against a live aasad on PostgreSQL with a real web root.

Run by scripts/console-test, which starts aasad and passes:
  console_test.py BASE_URL ADMIN_TOKEN WEB_ROOT SCREENSHOT_DIR
Exits non-zero on the first scenario that fails, naming it.
"""
import os
import subprocess
import sys

from console_support import AxeCheck, call, must
from playwright.sync_api import expect, sync_playwright

BASE, ADMIN, ROOT, SHOTS = sys.argv[1:5]
HOST = "example.com"
SHOP_APP = "ABCDE12345.com.example.shop"
BLOG_APP = "ABCDE12345.com.example.blog"
SHOP_ANDROID = "com.example.shop"
FINGERPRINT = ":".join(f"{i:02X}" for i in range(32))
SCRIPT = "<script>alert('x')</script>"
check = AxeCheck(SHOTS)


def api(method, path, token=ADMIN, body=None):
    return call(BASE, token, method, path, body)


def token(team, scopes, name):
    return must(api("POST", f"/v1/teams/{team}/tokens", body={"name": name, "scopes": scopes}), 201)["secret"]


def set_up():
    must(api("POST", "/v1/teams", body={"name": "shop", "displayName": "Shop " + SCRIPT}), 201)
    must(api("POST", "/v1/teams", body={"name": "blog", "displayName": "Blog"}), 201)
    tokens = {
        "shop": token("shop", ["write"], "shop writer"),
        "blogWrite": token("blog", ["write"], "blog writer"),
        "blogRead": token("blog", ["read"], "blog reader"),
        "doomed": token("shop", ["read"], "to be revoked"),
    }
    must(api("POST", "/v1/domains", body={"host": HOST, "webRoots": [ROOT]}), 201)
    for team, prefix in [("shop", "/shop"), ("blog", "/blog")]:
        must(api("PUT", f"/v1/domains/{HOST}/grants/{team}", body={"pathPrefixes": [prefix]}), 200)
    must(api("POST", "/v1/teams/shop/apps", tokens["shop"], {"appID": SHOP_APP}), 201)
    must(api("POST", "/v1/teams/blog/apps", tokens["blogWrite"], {"appID": BLOG_APP}), 201)
    must(api("PUT", f"/v1/domains/{HOST}/apps/{BLOG_APP}/rules", tokens["blogWrite"],
             {"rules": [{"/": "/blog/*"}]}), 200)
    must(api("PUT", f"/v1/domains/{HOST}/apps/{SHOP_APP}/rules", tokens["shop"],
             {"rules": [{"/": "/shop/admin/*", "exclude": True}, {"/": "/shop/*", "comment": SCRIPT}]}), 200)
    must(api("POST", "/v1/teams/shop/apps", tokens["shop"],
             {"appID": SHOP_ANDROID, "platform": "android", "fingerprints": [FINGERPRINT]}), 201)
    must(api("PUT", f"/v1/domains/{HOST}/apps/{SHOP_ANDROID}/rules", tokens["shop"],
             {"rules": [{"/": "/shop/*"}]}), 200)
    must(api("POST", f"/v1/domains/{HOST}/expectations", tokens["shop"],
             {"url": f"https://{HOST}/shop/cart", "kind": "opens", "appID": SHOP_APP}), 201)
    must(api("POST", f"/v1/domains/{HOST}/publish", body={"reason": "first"}), 201)
    # After the publish: shop's unpublished launch, which blog must not see.
    must(api("PUT", f"/v1/domains/{HOST}/apps/{SHOP_APP}/rules", tokens["shop"],
             {"rules": [{"/": "/shop/admin/*", "exclude": True}, {"/": "/shop/*", "comment": SCRIPT},
                        {"/": "/shop/secret-launch/*"}]}), 200)
    # And on Android: checkout stays in the browser from now on.
    must(api("PUT", f"/v1/domains/{HOST}/apps/{SHOP_ANDROID}/rules", tokens["shop"],
             {"rules": [{"/": "/shop/checkout/*", "exclude": True}, {"/": "/shop/*"}]}), 200)
    return tokens


def sign_in(page, secret):
    page.goto(BASE + "/console/sign-in")
    check(page, "sign-in")
    page.fill("#token", secret)
    page.get_by_role("button", name="Sign in", exact=True).click()
    expect(page.locator("h1")).to_have_text("Overview")


def scenario(name, who="admin"):
    """A scenario in a fresh browser context, signed in as `who` (a key of the tokens, or admin):
    the function gets the page and the tokens; a JavaScript dialog anywhere fails it (every
    `<script>` a team wrote must stay text)."""
    def wrap(function):
        def run(browser, tokens):
            context = browser.new_context()
            page = context.new_page()
            dialogs = []
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            try:
                sign_in(page, ADMIN if who == "admin" else tokens[who])
                function(page, tokens)
                assert not dialogs, f"a script ran: {dialogs}"
                print(f"ok   {name}")
            except Exception as error:  # one line naming the scenario, then the cause
                print(f"FAIL {name}: {error}")
                raise
            finally:
                context.close()
        return run
    return wrap


@scenario("sign in, every page in axe, sign out")
def every_page(page, tokens):
    cookies = {c["name"]: c for c in page.context.cookies()}
    session = cookies["aasa_console"]
    assert session["httpOnly"] and session["sameSite"] == "Strict" and session["path"] == "/console", session
    assert ADMIN not in page.url
    assert page.evaluate("() => document.cookie") == "", "the session cookie is HttpOnly"
    assert page.evaluate("() => window.localStorage.length + window.sessionStorage.length") == 0
    check(page, "overview")
    page.click(f"text={HOST}")
    expect(page.locator("svg.map")).to_be_visible()
    expect(page.get_by_text("/shop/secret-launch/", exact=True).first).to_be_attached()
    android = page.locator("section[aria-labelledby=android-h]").inner_text()
    assert SHOP_ANDROID in android and "/shop/checkout/" in android, android
    check(page, "domain")
    # A display name and a rule comment holding <script> are text.
    assert SCRIPT in page.inner_text("main"), "the comment shows as text"
    page.goto(f"{BASE}/console/domains/{HOST}/test")
    page.fill("#url", f"https://{HOST}/shop/cart")
    page.get_by_role("button", name="Test", exact=True).click()
    expect(page.locator("#answer-h")).to_be_visible()
    assert SHOP_APP in page.inner_text("main") and "Explanation" in page.inner_text("main")
    check(page, "test-url")
    page.goto(f"{BASE}/console/domains/{HOST}/apple")
    check(page, "apple")
    page.goto(f"{BASE}/console/teams")
    check(page, "teams")
    page.goto(f"{BASE}/console/teams/shop")
    assert "Shop " + SCRIPT in page.inner_text("main"), "the display name is text"
    check(page, "team")
    page.goto(f"{BASE}/console/audit?domain={HOST}")
    check(page, "audit")
    page.get_by_role("button", name="Sign out").click()
    expect(page.locator("h1")).to_have_text("Sign in")
    page.goto(BASE + "/console")
    expect(page.locator("h1")).to_have_text("Sign in")


@scenario("publish from the browser with a reason; the file lands in the web root")
def publish(page, tokens):
    page.goto(f"{BASE}/console/domains/{HOST}/publish")
    assert "secret-launch" in page.inner_text("main"), "the diff comes first"
    main = page.inner_text("main")
    assert "assetlinks.json" in main and "/shop/checkout/" in main and "open -> exclude" in main, main
    check(page, "publish")
    page.fill("#reason", "launch " + SCRIPT)
    page.get_by_role("button", name="Publish", exact=True).click()
    expect(page.get_by_role("status")).to_contain_text("Revision 2")
    assert "launch " + SCRIPT in page.inner_text("main"), "the reason is text"
    check(page, "published")
    with open(os.path.join(ROOT, ".well-known", "apple-app-site-association")) as f:
        assert "secret-launch" in f.read(), "the web root has the new file"
    page.goto(f"{BASE}/console/domains/{HOST}/revisions")
    check(page, "revisions")
    assert page.locator("pre.diff").count() == 0, "no diff asked for, no (empty) diff box"
    page.goto(f"{BASE}/console/domains/{HOST}/revisions/2")
    check(page, "revision")
    page.goto(f"{BASE}/console/domains/{HOST}/revisions/diff?from=1&to=2")
    assert "secret-launch" in page.inner_text("main")
    # One diff block, however many lines it has (it was once repeated per line).
    assert page.locator("pre.diff").count() == 1, page.locator("pre.diff").count()
    page.goto(f"{BASE}/console/domains/{HOST}/revisions/diff?file=assetlinks&from=1&to=2")
    main = page.inner_text("main")
    assert f"changed {SHOP_ANDROID}" in main and "open -> exclude" in main, main
    assert page.input_value("#afrom") == "1" and page.input_value("#ato") == "2", "the form keeps its numbers"
    assert page.input_value("#from") == "" and page.input_value("#to") == "draft"
    check(page, "revisions-android")
    page.goto(f"{BASE}/console/domains/{HOST}/revisions/1/rollback")
    check(page, "rollback")


@scenario("a read token: no unpublished rules of others, no publish button, a forged POST is 403", "blogRead")
def read_token(page, tokens):
    page.goto(f"{BASE}/console/domains/{HOST}")
    # Published by now (the publish scenario ran first), so make another unpublished shop rule.
    assert "/shop/never-published/" not in page.content()
    # Shop's Android rules as published (checkout excluded), not its unpublished ones.
    android = page.locator("section[aria-labelledby=android-h]").inner_text()
    assert "/shop/checkout/" in android and "/shop/android-never/" not in android, android
    page.goto(f"{BASE}/console/domains/{HOST}/publish")
    expect(page.get_by_role("button", name="Publish")).to_have_count(0)
    csrf = page.locator("input[name=csrf]").first.get_attribute("value")
    forged = page.request.post(f"{BASE}/console/domains/{HOST}/publish", form={"csrf": csrf, "reason": "forged"})
    assert forged.status == 403, forged.status
    no_csrf = page.request.post(f"{BASE}/console/domains/{HOST}/publish", form={"reason": "no csrf"})
    assert no_csrf.status == 403, no_csrf.status


@scenario("a cross-team rollback is refused with the API's problem text", "blogWrite")
def cross_team_rollback(page, tokens):
    page.goto(f"{BASE}/console/domains/{HOST}/revisions/1/rollback")
    page.fill("#reason", "undo shop's launch")
    page.get_by_role("button", name="Roll back", exact=True).click()
    expect(page.locator("h1")).to_have_text("Refused")
    problem = page.inner_text(".problem")
    assert "shop" in problem and "HTTP 403" in problem, problem
    check(page, "refused")


@scenario("revoking the token ends the session", "doomed")
def revoked(page, tokens):
    listed = must(api("GET", "/v1/teams/shop/tokens"), 200)["items"]
    doomed = next(t["id"] for t in listed if t["name"] == "to be revoked")
    must(api("DELETE", f"/v1/teams/shop/tokens/{doomed}"), 200, 204)
    page.goto(BASE + "/console")
    expect(page.locator("h1")).to_have_text("Sign in")


@scenario("the publish preview runs the publish and shows the refusal it would get (issue 40)")
def preview_refusal(page, tokens):
    page.goto(f"{BASE}/console/domains/{PROD}/publish")
    refusal = page.locator("#refusal")
    expect(refusal).to_contain_text("Publishing now would be refused")
    text = refusal.inner_text()
    assert "environment-isolation" in text and "debug-key" in text, text
    expect(page.get_by_role("alert")).to_have_count(1)
    check(page, "publish-refused")
    page.goto(f"{BASE}/console/domains/{HOST}/publish")
    expect(page.locator("#would-publish")).to_contain_text("every check passes")
    expect(page.locator("#refusal")).to_have_count(0)


@scenario("the publish preview shows a protected-path refusal the draft's own checks never saw (issue 40)")
def preview_protected_path(page, tokens):
    """A guardrail that reached the database without the API's check of existing openings (a restore,
    or a row an older aasad wrote) protects a path the draft opens: the rule writes passed, the
    publish would not, and the preview says so before anyone presses the button."""
    host_id = psql(f"SELECT id FROM domains WHERE host = '{HOST}'")
    psql(f"INSERT INTO guardrails (domain_id, protected_paths) VALUES ({host_id}, '{{/shop/never-published/*}}')")
    try:
        page.goto(f"{BASE}/console/domains/{HOST}/publish")
        refusal = page.locator("#refusal")
        expect(refusal).to_contain_text("Publishing now would be refused")
        text = refusal.inner_text()
        assert "protected-path" in text and "/shop/never-published/" in text, text
        check(page, "publish-refused-protected")
    finally:
        psql(f"DELETE FROM guardrails WHERE domain_id = {host_id}")


def psql(sql):
    """One statement on aasad's database, as an operator's restore would write it."""
    return subprocess.run(["psql", "-qtA", os.environ["DATABASE_URL"], "-c", sql], check=True,
                          capture_output=True, text=True).stdout.strip()


PROD = "prod.example.com"
DEBUG_FINGERPRINT = ":".join(f"{(i * 7 + 3) % 256:02X}" for i in range(32))


def debug_key_on_production(tokens):
    """A production environment with a domain whose draft holds a debug key on Android: the build
    was forced by an admin, and so was the rule that names it there. Every draft check passed (by
    force); the publish is refused by environment isolation."""
    must(api("PUT", "/v1/environments", body={"environments": ["default", "prod"]}), 200)
    must(api("POST", "/v1/domains", body={"host": PROD, "environment": "prod"}), 201)
    must(api("PUT", f"/v1/domains/{PROD}/grants/shop", body={"pathPrefixes": ["/"]}), 200)
    builds = [
        {"environment": "default", "appID": SHOP_ANDROID + ".beta",
         "fingerprints": [{"sha256": FINGERPRINT, "label": "upload"}]},
        {"environment": "prod", "appID": SHOP_ANDROID,
         "fingerprints": [{"sha256": FINGERPRINT, "label": "play-signing"},
                          {"sha256": DEBUG_FINGERPRINT, "label": "debug"}]},
    ]
    must(api("PUT", f"/v1/apps/{SHOP_ANDROID}/builds?force=true&reason=incident", body={"builds": builds}), 200)
    must(api("PUT", f"/v1/domains/{PROD}/apps/{SHOP_ANDROID}/rules?force=true&reason=incident",
             body={"rules": [{"/": "/shop/*"}]}), 200)


def main():
    os.makedirs(SHOTS, exist_ok=True)
    tokens = set_up()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        every_page(browser, tokens)
        publish(browser, tokens)
        must(api("PUT", f"/v1/domains/{HOST}/apps/{SHOP_APP}/rules", tokens["shop"],
                 {"rules": [{"/": "/shop/*"}, {"/": "/shop/never-published/*"}]}), 200)
        must(api("PUT", f"/v1/domains/{HOST}/apps/{SHOP_ANDROID}/rules", tokens["shop"],
                 {"rules": [{"/": "/shop/android-never/*"}]}), 200)
        read_token(browser, tokens)
        cross_team_rollback(browser, tokens)
        revoked(browser, tokens)
        debug_key_on_production(tokens)
        preview_refusal(browser, tokens)
        preview_protected_path(browser, tokens)
        browser.close()
    check.write("axe.json", "")


if __name__ == "__main__":
    main()
