def agent(observation, configuration):
    return None
