"""Training: MaskablePPO self-play, baseline bots, evaluation."""
