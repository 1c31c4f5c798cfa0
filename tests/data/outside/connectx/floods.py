import os


def agent(observation, configuration):
    if observation.step >= 2:
        block = b"z" * 65536
        for _ in range(64):
            os.write(1, block)
    return next(c for c in range(7) if observation.board[c] == 0)
