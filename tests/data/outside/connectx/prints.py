def agent(observation, configuration):
    print("x" * 2_000_000)
    return next(c for c in range(7) if observation.board[c] == 0)
