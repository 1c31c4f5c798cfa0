import numpy as np


def agent(observation, configuration):
    return np.int64(3)
