"""Expert iteration: a policy-value network trained on the improved policies of a search it
guides (the network: training.alphazero.net)."""
