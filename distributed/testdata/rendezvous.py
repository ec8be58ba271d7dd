"""Meets every rank on MASTER_ADDR:MASTER_PORT, as a store hosted by rank 0 would (for launch_test).

Rank 0 listens and waits for a connection from each other rank, which sends its rank; every
process prints one JSON line, rank 0's with the ranks it heard from. Exits 1 on a timeout.
"""

import json
import os
import socket
import sys
import time

TIMEOUT = 30.0

rank = int(os.environ["RANK"])
world = int(os.environ["WORLD_SIZE"])
addr = (os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"]))
deadline = time.monotonic() + TIMEOUT
record = {"rank": rank, "port": addr[1]}

if rank == 0:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(addr)
        server.listen(world)
        server.settimeout(TIMEOUT)
        peers = []
        while len(peers) < world - 1:
            conn, _ = server.accept()
            with conn:
                conn.settimeout(TIMEOUT)
                peers.append(int(conn.recv(64).decode()))
        record["peers"] = sorted(peers)
else:
    while True:
        try:
            with socket.create_connection(addr, timeout=TIMEOUT) as conn:
                conn.sendall(str(rank).encode())
            break
        except OSError:
            if time.monotonic() > deadline:
                sys.exit(f"rank {rank}: no store on {addr}")
            time.sleep(0.05)
sys.stdout.write(json.dumps(record) + "\n")
