# shellcheck shell=bash
# free_port: prints a TCP port on 127.0.0.1 that nobody listens on now (the kernel picks
# it; without python3, random ports are probed).  Sourced by the targets' scripts.
free_port() {
    local p i
    if command -v python3 >/dev/null 2>&1; then
        python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()' && return 0
    fi
    for ((i = 0; i < 200; i++)); do
        p=$((20000 + RANDOM % 40000))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
            printf '%s\n' "$p"
            return 0
        fi
    done
    return 1
}
