"""Console sign-in through an OpenID provider (issue 53) in a real browser: Debian's chromium driven
by Playwright, every console page checked by axe-core, against a live aasad and a real provider
(oidc-provider-mock over TLS, whose certificate chromium trusts by its public key).

Run by scripts/console-test, which starts the provider and aasad (with AASA_CONSOLE_OIDC_FILE) and passes:
  oidc_sign_in_test.py BASE_URL ADMIN_TOKEN WEB_ROOT PROVIDER_HOST PROVIDER_PORT PROVIDER_CERT SCREENSHOT_DIR
The provider's people (scripts/lib/demo-provider.sh): alice in shop-developers, ada in aasa-admins, sam
in shop-developers and blog-readers, bob in visitors only.
"""
import base64
import hashlib
import os
import subprocess
import sys

from console_support import AxeCheck, call, must
from playwright.sync_api import expect, sync_playwright

BASE, ADMIN, ROOT, IDP_HOST, IDP_PORT, IDP_CERT, SHOTS = sys.argv[1:8]
IDP = f"https://{IDP_HOST}:{IDP_PORT}"
HOST = "example.com"
SHOP_APP = "ABCDE12345.com.example.shop"
check = AxeCheck(SHOTS)


def api(method, path, body=None, token=ADMIN):
    return call(BASE, token, method, path, body)


def set_up():
    must(api("POST", "/v1/teams", {"name": "shop", "displayName": "Shop"}), 201)
    must(api("POST", "/v1/teams", {"name": "blog", "displayName": "Blog"}), 201)
    must(api("POST", "/v1/domains", {"host": HOST, "webRoots": [ROOT]}), 201)
    must(api("PUT", f"/v1/domains/{HOST}/grants/shop", {"pathPrefixes": ["/shop"]}), 200)
    must(api("POST", "/v1/teams/shop/apps", {"appID": SHOP_APP}), 201)
    must(api("PUT", f"/v1/domains/{HOST}/apps/{SHOP_APP}/rules", {"rules": [{"/": "/shop/*"}]}), 200)
    must(api("PUT", "/v1/oidc/console-mappings", {"mappings": [
        {"provider": "demo", "group": "shop-developers", "team": "shop", "role": "write"},
        {"provider": "demo", "group": "blog-readers", "team": "blog", "role": "read"},
        {"provider": "demo", "group": "aasa-admins", "role": "admin"},
    ]}), 200)


def sign_in_at_provider(page, sub, check_page=False):
    """The person presses the provider's button on aasad's sign-in page, then their own name on
    the provider's page, and comes back."""
    page.goto(BASE + "/console/sign-in")
    if check_page:
        check(page, "oidc-sign-in")
    page.get_by_role("link", name="Sign in with the demo provider").click()
    expect(page.get_by_role("heading", name="Authorize Client")).to_be_visible()
    assert page.url.startswith(IDP + "/oauth2/authorize?"), page.url
    assert "code_challenge_method=S256" in page.url and "nonce=" in page.url and "state=" in page.url
    page.get_by_role("button", name=sub, exact=True).click()


def scenario(name):
    def wrap(function):
        def run(browser):
            context = browser.new_context()
            page = context.new_page()
            try:
                function(page)
                print(f"ok   {name}")
            except Exception as error:
                print(f"FAIL {name}: {error}")
                raise
            finally:
                context.close()
        return run
    return wrap


@scenario("a shop developer signs in at the provider, sees shop's domain and publishes as themselves")
def shop_developer(page):
    sign_in_at_provider(page, "alice", check_page=True)
    expect(page.locator("h1")).to_have_text("Overview")
    expect(page.locator(".who")).to_have_text("shop/alice@example.com (sub alice) via demo")
    check(page, "oidc-overview")
    expect(page.get_by_role("link", name=HOST).first).to_be_visible()
    page.goto(f"{BASE}/console/domains/{HOST}/publish")
    page.fill("#reason", "alice from the console")
    page.get_by_role("button", name="Publish").click()
    expect(page.locator("main")).to_contain_text("Revision 1")
    with open(os.path.join(ROOT, ".well-known", "apple-app-site-association")) as f:
        assert "/shop/*" in f.read(), "the web root has shop's rule"


@scenario("an admin group gives the organisation, whose audit names the person who published")
def admin(page):
    sign_in_at_provider(page, "ada")
    expect(page.locator(".who")).to_have_text("ada@example.com (sub ada) via demo")
    page.goto(BASE + "/console/teams")
    expect(page.locator("main")).to_contain_text("blog")
    expect(page.locator("main")).to_contain_text("shop")
    page.goto(f"{BASE}/console/audit?domain={HOST}")
    expect(page.locator("main")).to_contain_text("shop/alice@example.com (sub alice) via demo")
    check(page, "oidc-audit")


@scenario("a person in two teams' groups switches between them")
def two_teams(page):
    sign_in_at_provider(page, "sam")
    expect(page.locator(".who")).to_have_text("shop/sam@example.com (sub sam) via demo")
    page.get_by_role("link", name="Switch team").click()
    check(page, "oidc-session")
    page.get_by_role("button", name="Act for blog").click()
    expect(page.locator(".who")).to_have_text("blog/sam@example.com (sub sam) via demo")


@scenario("a person in no mapped group is refused with a page that says so")
def refused(page):
    sign_in_at_provider(page, "bob")
    expect(page.get_by_role("alert")).to_contain_text("is in no group that gives access")
    assert "/console/sign-in/oidc/demo/callback" in page.url
    check(page, "oidc-refused")
    page.goto(BASE + "/console")
    expect(page.locator("h1")).to_have_text("Sign in")


@scenario("signing out ends the session and reaches the provider's logout")
def sign_out(page):
    sign_in_at_provider(page, "alice")
    expect(page.locator("h1")).to_have_text("Overview")
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("heading", name="End Session")).to_be_visible()
    assert page.url.startswith(IDP + "/oauth2/end_session?"), page.url
    assert "id_token_hint=" in page.url and "post_logout_redirect_uri=" in page.url
    page.get_by_role("button", name="End session").click()
    expect(page.locator("h1")).to_have_text("Sign in")
    assert page.url == BASE + "/console/sign-in", page.url
    page.goto(BASE + "/console")
    expect(page.locator("h1")).to_have_text("Sign in")


def main():
    os.makedirs(SHOTS, exist_ok=True)
    set_up()
    # Chromium trusts the provider's certificate by its public key, and finds its host on loopback.
    der = subprocess.run(["openssl", "x509", "-in", IDP_CERT, "-pubkey", "-noout"], check=True,
                         capture_output=True).stdout
    spki = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "der"], input=der, check=True,
                          capture_output=True).stdout
    pin = base64.b64encode(hashlib.sha256(spki).digest()).decode()
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path="/usr/bin/chromium",
            args=["--no-sandbox", f"--host-resolver-rules=MAP {IDP_HOST} 127.0.0.1",
                  f"--ignore-certificate-errors-spki-list={pin}"])
        for run in (shop_developer, admin, two_teams, refused, sign_out):
            run(browser)
        browser.close()
    check.write("axe-oidc.json", " (provider sign-in)")


if __name__ == "__main__":
    main()
