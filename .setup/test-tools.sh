#!/usr/bin/env bash
# Installs the system tools only the tests use when they are missing: chromium, the
# headless browser that tests the live view's page. Installs it with apt-get when run as
# root on Debian/Ubuntu; otherwise only says what is missing (the tests needing it skip).
# Never fails the build.
set -uo pipefail
command -v chromium >/dev/null || command -v chromium-browser >/dev/null && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "Installing test tools: chromium" >&2
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >&2 \
    || echo "Could not install chromium: the browser tests skip" >&2
else
  echo "chromium is missing (install it with: sudo apt-get install chromium);" \
       "the browser tests skip" >&2
fi
exit 0
