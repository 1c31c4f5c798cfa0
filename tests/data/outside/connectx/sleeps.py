import time


def agent(observation, configuration):
    time.sleep(configuration.actTimeout + 0.3)
    return next(c for c in range(7) if observation.board[c] == 0)
