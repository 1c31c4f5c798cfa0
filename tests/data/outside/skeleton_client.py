#!/usr/bin/env python3
"""A client in the manner of the course's skeleton (tests of ``serve --bot SPEC``): form-encoded
POSTs to ``{server}move`` with ``stil_id``, ``move`` and ``api_key``, no timeout, exit on any
non-200 reply or a false status.  Its ``student_move`` plays the first free column from the
left; it plays ``--games N`` games and prints one line per game: the result and the moves.

    python skeleton_client.py --server http://127.0.0.1:8000/ --id ab1234cd-s --games 2
"""

import argparse
import sys

import requests


def student_move(state):
    for col in range(7):
        if state[0][col] == 0:
            return col
    raise RuntimeError("no free column")


def call(server, stil_id, key, move):
    res = requests.post(server + "move", data={"stil_id": [stil_id], "move": move, "api_key": key})
    if res.status_code != 200:
        print(f"server answered HTTP {res.status_code}", file=sys.stderr)
        sys.exit(1)
    reply = res.json()
    if reply.get("status") is False and reply.get("result") in (None, 0):
        print(f"server said: {reply.get('msg')}", file=sys.stderr)
        sys.exit(1)
    return reply


def play(server, stil_id, key):
    reply = call(server, stil_id, key, -1)
    state = reply["state"] or [[0] * 7 for _ in range(6)]
    moves = []
    if reply.get("botmove") not in (None, -1):
        moves.append(reply["botmove"])
    while reply.get("result") in (None, 0):
        col = student_move(state)
        moves.append(col)
        reply = call(server, stil_id, key, col)
        if reply.get("botmove") not in (None, -1):
            moves.append(reply["botmove"])
        state = reply["state"] or state
    return reply["result"], moves, reply.get("msg")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--id", default="skeleton-test")
    parser.add_argument("--key", default="nyckel")
    parser.add_argument("--games", type=int, default=1)
    args = parser.parse_args()
    for _ in range(args.games):
        result, moves, msg = play(args.server, args.id, args.key)
        print(f"result {result} moves {''.join(map(str, moves))} msg {msg}", flush=True)


if __name__ == "__main__":
    main()
