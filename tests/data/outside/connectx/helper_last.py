"""The last callable of the file is the agent, as on Kaggle: here the helper, which returns 9."""


def agent(observation, configuration):
    return 3


def helper():
    return 9
