#!/usr/bin/env bash
# Idempotent dependency check/installer for tests/run.sh and examples/run.sh.
#
#  * Debian packages (build tools, libraries, Node.js, curl, python3): if any is missing
#    and we are root, `apt-get update` once and install the missing ones; if not root,
#    list them and exit 1.  node/npm already on PATH (e.g. from NodeSource or nvm)
#    count as present.
#  * tests/node_modules (Azurite + @azure/data-tables, pinned by tests/package-lock.json):
#    `npm ci` if azurite-table is missing.
#
# Prints one line on success. Tool output goes to a temporary log that is shown only
# on failure. Can be executed or sourced (it runs in a subshell either way).
(
    set -euo pipefail

    here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
    log="$(mktemp "${TMPDIR:-/tmp}/aztables-deps.XXXXXX")"
    trap 'rm -f "$log"' EXIT

    fail() {
        printf 'deps.sh: %s\n' "$*" >&2
        if [[ -s "$log" ]]; then
            printf 'deps.sh: last lines of the tool output:\n' >&2
            tail -n 40 "$log" | sed 's/^/    /' >&2
        fi
        exit 1
    }

    wanted=(build-essential cmake pkg-config libcurl4-openssl-dev libssl-dev
        libsimdjson-dev catch2 nlohmann-json3-dev curl python3 ca-certificates
        doxygen # doxygen: the docs:api check (undocumented public API fails the build)
        clang libclang-rt-dev openssl) # clang + libFuzzer runtime: the fuzz stage; openssl CLI: TLS tests
    command -v node >/dev/null 2>&1 || wanted+=(nodejs)
    command -v npm >/dev/null 2>&1 || wanted+=(npm)

    missing=()
    for pkg in "${wanted[@]}"; do
        status="$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)"
        [[ "$status" == "installed" ]] || missing+=("$pkg")
    done

    did=()
    if ((${#missing[@]})); then
        if [[ "$(id -u)" != "0" ]]; then
            printf 'deps.sh: missing Debian packages: %s\n' "${missing[*]}" >&2
            printf 'deps.sh: install them with: sudo apt-get install -y --no-install-recommends %s\n' \
                "${missing[*]}" >&2
            exit 1
        fi
        export DEBIAN_FRONTEND=noninteractive
        apt-get update >>"$log" 2>&1 || fail "apt-get update failed"
        apt-get install -y --no-install-recommends "${missing[@]}" >>"$log" 2>&1 ||
            fail "apt-get install ${missing[*]} failed"
        did+=("apt: ${missing[*]}")
    fi

    command -v node >/dev/null 2>&1 || fail "node not found on PATH"
    command -v npm >/dev/null 2>&1 || fail "npm not found on PATH"
    node_ver="$(node --version 2>/dev/null || echo unknown)"
    node_major="${node_ver#v}"
    node_major="${node_major%%.*}"
    if [[ "$node_major" =~ ^[0-9]+$ ]] && ((node_major < 20)); then
        printf 'deps.sh: warning: node %s is older than 20; Azurite 3.37 / @azure/data-tables 13.3 may not work\n' \
            "$node_ver" >&2
    fi

    if [[ ! -x "$here/node_modules/.bin/azurite-table" ]]; then
        (cd "$here" && npm ci --no-audit --no-fund) >>"$log" 2>&1 || fail "npm ci in $here failed"
        [[ -x "$here/node_modules/.bin/azurite-table" ]] ||
            fail "npm ci succeeded but $here/node_modules/.bin/azurite-table is missing"
        did+=("npm ci")
    fi

    azurite_ver="$(node -p 'require(process.argv[1]).version' "$here/node_modules/azurite/package.json" 2>/dev/null || echo '?')"
    if ((${#did[@]})); then
        extra=" (installed: $(IFS=';'; echo "${did[*]}"))"
    else
        extra=""
    fi
    printf 'deps: ok — node %s, azurite %s%s\n' "$node_ver" "$azurite_ver" "$extra"
)
