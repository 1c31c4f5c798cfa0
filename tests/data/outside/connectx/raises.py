def agent(observation, configuration):
    if observation.step >= 2:
        return 1 // 0
    return next(c for c in range(7) if observation.board[c] == 0)
