import sys


def agent(observation, configuration):
    if observation.step >= 2:
        sys.exit(0)
    return 3
