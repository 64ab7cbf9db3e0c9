#!/usr/bin/env bash
# Start/stop a private Azurite *table* emulator for the aztables tests and demo.
#
# Usage (executed):
#   tests/azurite.sh start STATE_DIR   # start on a free 127.0.0.1 port, print the port
#   tests/azurite.sh stop  STATE_DIR   # stop the instance recorded in STATE_DIR
#   tests/azurite.sh env   STATE_DIR   # print `export AZTABLES_TEST_*=...` lines (eval them):
#                                      # connection string, endpoint, Azurite's pid
#   tests/azurite.sh port  STATE_DIR   # print the recorded port
#   tests/azurite.sh status STATE_DIR  # exit 0 if that instance is running
#
# Usage (sourced): defines azurite_start / azurite_stop / azurite_env / azurite_port /
# azurite_status, which take STATE_DIR and return non-zero on failure instead of
# exiting.
#
# STATE_DIR gets: azurite.pid, azurite.port, azurite.log (stdout+stderr of Azurite) and,
# when AZTABLES_AZURITE_DEBUG=1, debug.log (Azurite's per-request debug log).
# Data is kept in memory only (--inMemoryPersistence; Azurite 3.37 refuses to combine it
# with --location), and Azurite runs with STATE_DIR as its cwd so nothing lands elsewhere.
#
# The port is never fixed: the kernel picks a free one (bind to port 0), so several
# instances (parallel CI stages, a developer's own Azurite on 10002) can coexist.
# The recorded pid is the node process itself (no wrapper shell), so `stop` kills
# exactly that process — never anything found by name.

_AZURITE_SH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# Well-known, public development-storage account (documented by Microsoft).
AZURITE_ACCOUNT_NAME="devstoreaccount1"
AZURITE_ACCOUNT_KEY="Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="

_azurite_err() { printf 'azurite.sh: %s\n' "$*" >&2; }

_azurite_bin() { printf '%s\n' "$_AZURITE_SH_DIR/node_modules/.bin/azurite-table"; }

# Ask the kernel for a currently free loopback TCP port (bind port 0, read it, release).
_azurite_free_port() {
    local p=""
    if command -v python3 >/dev/null 2>&1; then
        p="$(python3 -c 'import socket
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()' 2>/dev/null)" || p=""
    fi
    if [[ -z "$p" ]] && command -v node >/dev/null 2>&1; then
        p="$(node -e 'const s = require("net").createServer();
s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });' 2>/dev/null)" || p=""
    fi
    [[ "$p" =~ ^[0-9]+$ ]] || { _azurite_err "could not obtain a free port (need python3 or node)"; return 1; }
    printf '%s\n' "$p"
}

# True if PID exists and is not a zombie (an exited Azurite whose parent is init stays a
# zombie until init reaps it, and `kill -0` still succeeds on it).
_azurite_alive() {
    local pid="$1" stat=""
    [[ "$pid" =~ ^[0-9]+$ ]] || return 1
    kill -0 "$pid" 2>/dev/null || return 1
    if [[ -r "/proc/$pid/stat" ]]; then
        stat="$(cat "/proc/$pid/stat" 2>/dev/null)" || return 1
        stat="${stat##*) }"
        [[ "${stat:0:1}" != "Z" && "${stat:0:1}" != "X" ]] || return 1
    fi
    return 0
}

# True if PID is alive and is an Azurite process (guards against pid reuse).
_azurite_pid_is_ours() {
    local pid="$1"
    _azurite_alive "$pid" || return 1
    if [[ -r "/proc/$pid/cmdline" ]]; then
        tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q 'azurite' || return 1
    fi
    return 0
}

_azurite_log_tail() {
    local log="$1"
    if [[ -s "$log" ]]; then
        _azurite_err "last lines of $log:"
        tail -n 30 "$log" | sed 's/^/    /' >&2
    fi
}

_azurite_http_code() {
    curl -s -o /dev/null -w '%{http_code}' --max-time 2 \
        -H 'Accept: application/json;odata=nometadata' \
        "http://127.0.0.1:$1/$AZURITE_ACCOUNT_NAME/Tables" 2>/dev/null || true
}

azurite_start() {
    local state="${1:-}"
    [[ -n "$state" ]] || { _azurite_err "usage: azurite.sh start STATE_DIR"; return 2; }
    local bin; bin="$(_azurite_bin)"
    [[ -x "$bin" ]] || { _azurite_err "$bin not found; run tests/deps.sh (npm ci in tests/)"; return 1; }
    command -v curl >/dev/null 2>&1 || { _azurite_err "curl is required"; return 1; }

    mkdir -p "$state"
    state="$(cd "$state" && pwd)"
    local pidf="$state/azurite.pid" portf="$state/azurite.port" log="$state/azurite.log"

    # A previous run of ours (same STATE_DIR) that was not stopped: stop it first.
    if [[ -f "$pidf" ]]; then
        local old; old="$(cat "$pidf" 2>/dev/null || true)"
        if _azurite_pid_is_ours "$old"; then
            _azurite_err "stopping stale Azurite (pid $old) recorded in $pidf"
            azurite_stop "$state" || return 1
        fi
        rm -f "$pidf"
    fi

    rm -f "$state/debug.log"
    local -a extra=()
    if [[ "${AZTABLES_AZURITE_DEBUG:-0}" == "1" ]]; then
        extra+=(--debug "$state/debug.log")
    fi

    local attempt port pid i code
    for attempt in 1 2 3; do
        port="$(_azurite_free_port)" || return 1
        : >"$log"
        # exec in the background subshell: $! is the pid of azurite-table itself
        # (its `#!/usr/bin/env node` shebang execs node in place), not of a wrapper.
        # stdin/stdout/stderr are detached so `$(azurite.sh start ...)` returns.
        ( cd "$state" && exec "$bin" \
            --tableHost 127.0.0.1 \
            --tablePort "$port" \
            --inMemoryPersistence \
            --disableTelemetry \
            "${extra[@]}" \
            </dev/null >>"$log" 2>&1 ) &
        pid=$!
        printf '%s\n' "$pid" >"$pidf"
        printf '%s\n' "$port" >"$portf"

        # Poll for readiness (bounded, ~30 s): the port answers HTTP (any status;
        # unsigned requests get 403) while our process is alive, and Azurite has logged
        # "successfully started on 127.0.0.1:PORT" (proof that the answer is ours and not
        # from whoever may have grabbed the port; if a future Azurite words it
        # differently, a live process answering for 5 s is accepted instead).
        for ((i = 0; i < 150; i++)); do
            if ! _azurite_alive "$pid"; then
                break
            fi
            if grep -Eq "successfully .*127\.0\.0\.1:$port([^0-9]|\$)" "$log" 2>/dev/null || ((i >= 25)); then
                code="$(_azurite_http_code "$port")"
                if [[ "$code" =~ ^[1-5][0-9][0-9]$ ]]; then
                    printf '%s\n' "$port"
                    return 0
                fi
            fi
            sleep 0.2
        done

        if _azurite_alive "$pid"; then
            _azurite_err "Azurite (pid $pid) did not become ready on port $port within 30 s"
            kill -TERM "$pid" 2>/dev/null || true
            for ((i = 0; i < 50; i++)); do _azurite_alive "$pid" || break; sleep 0.1; done
            kill -KILL "$pid" 2>/dev/null || true
            wait "$pid" 2>/dev/null || true
            rm -f "$pidf" "$portf"
            _azurite_log_tail "$log"
            return 1
        fi
        wait "$pid" 2>/dev/null || true
        rm -f "$pidf" "$portf"
        if grep -q 'EADDRINUSE' "$log" 2>/dev/null; then
            _azurite_err "port $port was taken before Azurite bound it (attempt $attempt/3); retrying"
            continue
        fi
        _azurite_err "Azurite exited during startup"
        _azurite_log_tail "$log"
        return 1
    done
    _azurite_err "could not start Azurite after 3 attempts (port races)"
    _azurite_log_tail "$log"
    return 1
}

azurite_stop() {
    local state="${1:-}"
    [[ -n "$state" ]] || { _azurite_err "usage: azurite.sh stop STATE_DIR"; return 2; }
    local pidf="$state/azurite.pid"
    [[ -f "$pidf" ]] || return 0
    local pid; pid="$(cat "$pidf" 2>/dev/null || true)"
    if ! _azurite_pid_is_ours "$pid"; then
        rm -f "$pidf"
        return 0
    fi
    local i
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 100; i++)); do # up to ~10 s
        _azurite_alive "$pid" || break
        sleep 0.1
    done
    if _azurite_alive "$pid"; then
        _azurite_err "Azurite (pid $pid) ignored SIGTERM for 10 s; sending SIGKILL"
        kill -KILL "$pid" 2>/dev/null || true
        for ((i = 0; i < 50; i++)); do
            _azurite_alive "$pid" || break
            sleep 0.1
        done
    fi
    if _azurite_alive "$pid"; then
        _azurite_err "Azurite (pid $pid) is still running"
        return 1
    fi
    rm -f "$pidf"
    return 0
}

azurite_port() {
    local state="${1:-}"
    [[ -n "$state" ]] || { _azurite_err "usage: azurite.sh port STATE_DIR"; return 2; }
    local port; port="$(cat "$state/azurite.port" 2>/dev/null || true)"
    [[ "$port" =~ ^[0-9]+$ ]] || { _azurite_err "no port recorded in $state (not started?)"; return 1; }
    printf '%s\n' "$port"
}

# Exit 0 if the Azurite recorded in STATE_DIR is running.
azurite_status() {
    local state="${1:-}"
    [[ -n "$state" ]] || { _azurite_err "usage: azurite.sh status STATE_DIR"; return 2; }
    _azurite_pid_is_ours "$(cat "$state/azurite.pid" 2>/dev/null || true)"
}

azurite_env() {
    local state="${1:-}"
    [[ -n "$state" ]] || { _azurite_err "usage: azurite.sh env STATE_DIR"; return 2; }
    local port; port="$(azurite_port "$state")" || return 1
    local endpoint="http://127.0.0.1:$port/$AZURITE_ACCOUNT_NAME"
    printf "export AZTABLES_TEST_CONNECTION_STRING='DefaultEndpointsProtocol=http;AccountName=%s;AccountKey=%s;TableEndpoint=%s;'\n" \
        "$AZURITE_ACCOUNT_NAME" "$AZURITE_ACCOUNT_KEY" "$endpoint"
    printf 'export AZTABLES_TEST_ENDPOINT=%s\n' "$endpoint"
    # The node process (benchmark row 6d reads its JavaScript thread's CPU time).
    local pid; pid="$(cat "$state/azurite.pid" 2>/dev/null)" || pid=""
    [[ "$pid" =~ ^[0-9]+$ ]] && printf 'export AZTABLES_TEST_AZURITE_PID=%s\n' "$pid"
    return 0
}

_azurite_main() {
    local cmd="${1:-}"
    shift || true
    case "$cmd" in
        start) azurite_start "$@" ;;
        stop) azurite_stop "$@" ;;
        env) azurite_env "$@" ;;
        port) azurite_port "$@" ;;
        status) azurite_status "$@" ;;
        *)
            _azurite_err "usage: azurite.sh {start|stop|env|port|status} STATE_DIR"
            return 2
            ;;
    esac
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    set -euo pipefail
    _azurite_main "$@"
fi
