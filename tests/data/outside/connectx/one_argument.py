def my_agent(observation):
    free = [c for c in range(7) if observation.board[c] == 0]
    return free[len(free) // 2]
