"""The hang_socket scenario's server: a local TCP server that accepts, reads
the request, and never answers; it closes each connection HOLD seconds
after accepting it. Writes the port it listens on to PORT_FILE.

    /usr/bin/python3 hangserver.py PORT_FILE HOLD
"""
import socket
import sys
import threading
import time


def hold(conn, seconds):
    try:
        conn.recv(4096)
        time.sleep(seconds)
    finally:
        conn.close()


def main():
    port_file, seconds = sys.argv[1], float(sys.argv[2])
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    with open(port_file + ".tmp", "w") as f:
        f.write("%d\n" % srv.getsockname()[1])
    import os
    os.replace(port_file + ".tmp", port_file)
    while True:
        conn, _ = srv.accept()
        threading.Thread(target=hold, args=(conn, seconds), daemon=True).start()


if __name__ == "__main__":
    main()
