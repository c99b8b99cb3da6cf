# oidc-provider-mock (PyPI), the OpenID provider the console sign-in tests and `scripts/run
# --demo-provider` start, in its own virtual environment: .build/oidc-provider-venv.
# shellcheck shell=bash
oidc_provider_python=.build/oidc-provider-venv/bin/python
ensure_oidc_provider() {
  if ! "$oidc_provider_python" -c "import oidc_provider_mock" >/dev/null 2>&1; then
    if ! python3 -m venv .build/oidc-provider-venv >/dev/null 2>&1; then
      sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
      $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-venv >/dev/null
      python3 -m venv .build/oidc-provider-venv
    fi
    "$oidc_provider_python" -m pip install -q --disable-pip-version-check "oidc-provider-mock==0.3.4" >/dev/null
  fi
}
