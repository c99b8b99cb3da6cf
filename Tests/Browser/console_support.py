"""What the console's browser tests share (console_test.py, oidc_sign_in_test.py): the API called
with a bearer token, a status required, and axe-core run on a page, with a screenshot."""
import json
import os
import urllib.error
import urllib.request

from axe_playwright_python.sync_playwright import Axe


def call(base, token, method, path, body=None):
    """(status, JSON answer or None) of one API call."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, method=method)
    request.add_header("Authorization", "Bearer " + token)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request) as response:
            text = response.read()
            return response.status, json.loads(text) if text else None
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def must(result, *statuses):
    status, body = result
    assert status in statuses, f"expected {statuses}, got {status}: {body}"
    return body


class AxeCheck:
    """axe on each page checked (0 serious or critical violations), a screenshot of it in `shots`,
    and the results by page name for `write`."""

    def __init__(self, shots):
        self.axe = Axe()
        self.shots = shots
        self.results = {}

    def __call__(self, page, name):
        violations = self.axe.run(page).response["violations"]
        serious = [v for v in violations if v.get("impact") in ("serious", "critical")]
        self.results[name] = {"violations": len(violations), "serious_or_critical": len(serious),
                              "ids": sorted({v["id"] for v in violations})}
        assert not serious, f"{name}: axe found {[(v['id'], v['impact'], v['nodes'][0]['html']) for v in serious]}"
        page.screenshot(path=os.path.join(self.shots, name + ".png"), full_page=True)

    def write(self, filename, label):
        with open(os.path.join(self.shots, filename), "w") as f:
            json.dump(self.results, f, indent=2, sort_keys=True)
        worst = sum(r["serious_or_critical"] for r in self.results.values())
        every = sum(r["violations"] for r in self.results.values())
        print(f"axe{label}: {len(self.results)} pages, {worst} serious or critical violations; all violations: {every}")
