def agent(observation, configuration):
    return "three"
