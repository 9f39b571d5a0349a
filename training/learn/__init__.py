"""Learning agents: MaskablePPO self-play (`train`, the single-seat gymnasium env `env`, the batch
VecEnv `batch_vec_env`, the README's main job `main_job`) and self-play on RLlib (`rllib_train`,
`rllib_env`; the optional extra [ray])."""
